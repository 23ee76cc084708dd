package io.krill.compat.faults;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Private test hosts on this machine: one Linux network namespace per broker, each joined by a veth pair to
 * a bridge in the root namespace that carries the address {@code 10.77.<k>.1/24}; host {@code i} is
 * {@code 10.77.<k>.<10+i>}. The test JVM (clients, ZooKeeper) sits on the bridge address, so it reaches
 * every host and they reach it; hosts reach each other through the bridge. {@code k} is a subnet no
 * interface of this machine uses yet, so two campaigns running at once do not collide.
 *
 * <p>Links are cut with iptables rules inside a host's namespace (they vanish with it): every packet on the
 * host's interface, packets to and from chosen hosts, or packets to and from one TCP port of the bridge
 * address (ZooKeeper's). DROP rather than REJECT: a cut link is silence, as with a pulled cable, and
 * established connections stall rather than reset.
 *
 * <p>Names carry this JVM's pid ({@code kf-<pid>-b<i>}, bridge {@code kfb<pid>}, veth {@code kf<pid>v<i>}):
 * {@link #sweepLeftovers} deletes those of JVMs that died without cleaning up (SIGKILL skips shutdown hooks).
 * Needs root and iproute2 and iptables.
 */
final class NetworkLab implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NetworkLab.class);
    private static final Pattern NAMESPACE = Pattern.compile("^kf-(\\d+)-b\\d+");
    private static final Pattern BRIDGE = Pattern.compile("^\\d+: (kfb(\\d+))[:@]");

    private final long pid = ProcessHandle.current().pid();
    private final String bridge = "kfb" + pid;
    private final String subnet;
    private final Map<Integer, String> namespaces = new LinkedHashMap<>();
    private boolean bridgeUp;

    private NetworkLab(String subnet) {
        this.subnet = subnet;
    }

    /** True when this machine lets us make namespaces (root, iproute2, iptables): checked by making one. */
    static boolean available() {
        String probe = "kf-" + ProcessHandle.current().pid() + "-probe";
        boolean ok = Shell.tryRun("ip", "netns", "add", probe)
                && Shell.tryRun(Shell.inNamespace(probe, Shell.executable("iptables"), "-w", "-S"));
        Shell.tryRun("ip", "netns", "del", probe);
        return ok;
    }

    /** Creates the bridge and {@code hosts} namespaces (ids 1..hosts) with their links up. */
    static NetworkLab create(int hosts) {
        sweepLeftovers();
        NetworkLab lab = new NetworkLab(freeSubnet());
        try {
            lab.up(hosts);
            return lab;
        } catch (RuntimeException | Error e) {
            lab.close();
            throw e;
        }
    }

    private void up(int hosts) {
        Shell.run("ip", "link", "add", bridge, "type", "bridge");
        bridgeUp = true;
        Shell.run("ip", "addr", "add", subnet + ".1/24", "dev", bridge);
        Shell.run("ip", "link", "set", bridge, "up");
        for (int i = 1; i <= hosts; i++) {
            String ns = "kf-" + pid + "-b" + i;
            String hostSide = "kf" + pid + "v" + i;
            String nsSide = "kf" + pid + "n" + i;
            Shell.run("ip", "netns", "add", ns);
            namespaces.put(i, ns);
            Shell.run("ip", "link", "add", hostSide, "type", "veth", "peer", "name", nsSide);
            Shell.run("ip", "link", "set", nsSide, "netns", ns);
            Shell.run("ip", "link", "set", hostSide, "master", bridge, "up");
            Shell.run("ip", "-n", ns, "link", "set", nsSide, "name", "eth0");
            Shell.run("ip", "-n", ns, "addr", "add", address(i) + "/24", "dev", "eth0");
            Shell.run("ip", "-n", ns, "link", "set", "eth0", "up");
            Shell.run("ip", "-n", ns, "link", "set", "lo", "up");
        }
        LOG.info("network lab: bridge {} at {}.1, hosts {}", bridge, subnet, namespaces);
    }

    /** The address of the test JVM (and ZooKeeper) on the bridge. */
    String bridgeAddress() {
        return subnet + ".1";
    }

    String address(int host) {
        return subnet + "." + (10 + host);
    }

    String namespace(int host) {
        String ns = namespaces.get(host);
        if (ns == null) {
            throw new IllegalArgumentException("no host " + host);
        }
        return ns;
    }

    /** The launcher that runs a command inside host {@code host}'s namespace ({@code ip netns exec} exec's it). */
    List<String> launcher(int host) {
        return List.of(Shell.executable("ip"), "netns", "exec", namespace(host));
    }

    /** Drops every packet in and out of the host: isolated from clients, ZooKeeper and the other hosts. */
    void isolate(int host) {
        iptables(host, "-A", "INPUT", "-i", "eth0", "-j", "DROP");
        iptables(host, "-A", "OUTPUT", "-o", "eth0", "-j", "DROP");
    }

    /** Drops packets between {@code host} and each of {@code others} (both directions, from its side). */
    void cut(int host, List<Integer> others) {
        for (int other : others) {
            iptables(host, "-A", "INPUT", "-s", address(other), "-j", "DROP");
            iptables(host, "-A", "OUTPUT", "-d", address(other), "-j", "DROP");
        }
    }

    /** Drops packets between {@code host} and TCP port {@code port} of the bridge address (ZooKeeper). */
    void cutFromBridgePort(int host, int port) {
        iptables(host, "-A", "OUTPUT", "-d", bridgeAddress(), "-p", "tcp", "--dport", Integer.toString(port),
                "-j", "DROP");
        iptables(host, "-A", "INPUT", "-s", bridgeAddress(), "-p", "tcp", "--sport", Integer.toString(port),
                "-j", "DROP");
    }

    /** Removes every rule of the host: its links work again. */
    void heal(int host) {
        iptables(host, "-F");
    }

    void healAll() {
        namespaces.keySet().forEach(this::heal);
    }

    private void iptables(int host, String... args) {
        List<String> command = new ArrayList<>(List.of(Shell.executable("iptables"), "-w"));
        command.addAll(List.of(args));
        Shell.run(Shell.inNamespace(namespace(host), command.toArray(String[]::new)));
    }

    /** Deletes the namespaces (their veth pairs and rules go with them) and the bridge; never throws. */
    @Override
    public void close() {
        for (String ns : namespaces.values()) {
            Shell.tryRun("ip", "netns", "del", ns);
        }
        namespaces.clear();
        if (bridgeUp) {
            Shell.tryRun("ip", "link", "del", bridge);
            bridgeUp = false;
        }
    }

    /** Deletes namespaces and bridges named after JVMs that no longer run. */
    static void sweepLeftovers() {
        for (String line : Shell.run("ip", "netns", "list").lines().toList()) {
            Matcher m = NAMESPACE.matcher(line);
            if (m.find() && !alive(Long.parseLong(m.group(1)))) {
                String ns = line.split(" ")[0];
                LOG.warn("deleting namespace {} left by a dead campaign", ns);
                Shell.tryRun("ip", "netns", "del", ns);
            }
        }
        for (String line : Shell.run("ip", "-o", "link", "show").lines().toList()) {
            Matcher m = BRIDGE.matcher(line);
            if (m.find() && !alive(Long.parseLong(m.group(2)))) {
                LOG.warn("deleting bridge {} left by a dead campaign", m.group(1));
                Shell.tryRun("ip", "link", "del", m.group(1));
            }
        }
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** {@code 10.77.<k>} with no address of this machine in it. */
    private static String freeSubnet() {
        String addresses = Shell.run("ip", "-o", "addr", "show");
        int start = (int) (ProcessHandle.current().pid() % 200);
        for (int i = 0; i < 250; i++) {
            int k = 1 + (start + i) % 250;
            if (!addresses.contains(" 10.77." + k + ".")) {
                return "10.77." + k;
            }
        }
        throw new IllegalStateException("every 10.77.k.0/24 is in use on this machine");
    }

    @Override
    public String toString() {
        return "bridge " + bridge + " " + subnet + ".0/24, namespaces " + namespaces.values();
    }
}
