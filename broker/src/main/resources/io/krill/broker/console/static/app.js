// Krill's web console: hash routes over the JSON API of docs/console.md, no build step. Read-only unless
// the broker says otherwise (me.readOnly false): then the topic and group pages offer the operator's actions.
// Every value from the API is user data (topic names, keys, values): it reaches the page only as text
// (textContent, attribute values), never as HTML.
(() => {
  'use strict';

  const REFRESH_MS = 5000;
  const PAGE_SIZE = 50;
  const TOTAL = 'all topics';
  const view = document.getElementById('view');
  const lastUpdated = document.getElementById('last-updated');
  const toggle = document.getElementById('refresh-toggle');

  // ---- DOM helpers --------------------------------------------------------------------------------

  // el('td', {class: 'num', dataset: {col: 'lag'}}, 'text', childNode, ...): strings become text nodes.
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v == null || v === false) continue;
      if (k === 'dataset') Object.assign(node.dataset, v);
      else if (k === 'on') for (const [ev, fn] of Object.entries(v)) node.addEventListener(ev, fn);
      else node.setAttribute(k, v === true ? '' : String(v));
    }
    append(node, children);
    return node;
  }

  function append(node, children) {
    for (const c of children.flat()) {
      if (c == null || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  function replace(node, ...children) {
    node.replaceChildren();
    return append(node, children);
  }

  const fmt = {
    num: (n) => (n == null ? '–' : Number(n).toLocaleString('en-US')),
    bytes(n) {
      if (n == null) return '–';
      const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
      let v = n, i = 0;
      while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
      return (i === 0 ? v : v.toFixed(v < 10 ? 1 : 0)) + ' ' + units[i];
    },
    // Local time with milliseconds: records produced within one second stay apart.
    time(ms) {
      if (ms == null || ms < 0) return '–';
      const d = new Date(ms), p = (n, w = 2) => String(n).padStart(w, '0');
      return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ` +
        `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
    },
    list: (xs) => (xs && xs.length ? xs.join(', ') : '–'),
  };

  // A table: columns [{label, num?}], rows of cells (a cell is a node, text, or {text, col, cls, title}).
  function table(testid, columns, rows, empty) {
    if (!rows.length) return el('p', {class: 'muted', 'data-testid': testid + '-empty'}, empty || 'None.');
    const head = el('tr', {}, columns.map((c) => el('th', {class: c.num ? 'num' : null, scope: 'col'}, c.label)));
    const body = rows.map((r) => el('tr', r.attrs || {}, r.cells.map((cell, i) => {
      const c = columns[i];
      const spec = cell && typeof cell === 'object' && !(cell instanceof Node) ? cell : {text: cell};
      return el('td', {class: [c.num ? 'num' : '', spec.cls || ''].join(' ').trim() || null,
        'data-col': c.col, 'data-value': spec.value, title: spec.title}, spec.text);
    })));
    return el('div', {class: 'table-wrap'}, el('table', {'data-testid': testid}, el('thead', {}, head), el('tbody', {}, body)));
  }

  function section(title, testid, ...children) {
    return el('section', {class: 'card', 'data-testid': testid}, el('h2', {}, title), children);
  }

  function link(href, text, attrs) {
    return el('a', Object.assign({href}, attrs || {}), text);
  }

  // ---- API ----------------------------------------------------------------------------------------

  class ApiError extends Error {
    constructor(status, error, message) {
      super(message || error || `HTTP ${status}`);
      this.status = status;
      this.error = error;
    }
  }

  // Brokers that did not answer in time for the current refresh: their part of the answers is missing.
  const unavailable = new Set();

  async function api(path) {
    let res;
    try {
      res = await fetch('api/' + path, {headers: {Accept: 'application/json'}, cache: 'no-store'});
    } catch (e) {
      throw new ApiError(0, 'NETWORK', 'The broker does not answer: ' + e.message);
    }
    if (res.ok) {
      const body = await res.json();
      for (const id of body.unavailableBrokers || []) unavailable.add(id);
      return body;
    }
    let body = {};
    try { body = await res.json(); } catch (e) { /* not JSON: the status says enough */ }
    throw new ApiError(res.status, body.error || res.statusText, body.message);
  }

  // Read-only until /me says the broker takes actions (krill.console.read.only=false).
  let readOnly = true;

  // An action: POST or DELETE with a JSON body and the header the broker's CSRF guard asks for.
  async function act(method, path, body) {
    let res;
    try {
      res = await fetch('api/' + path, {method, cache: 'no-store', body: JSON.stringify(body || {}),
        headers: {'Accept': 'application/json', 'Content-Type': 'application/json', 'X-Krill-Console': '1'}});
    } catch (e) {
      throw new ApiError(0, 'NETWORK', 'The broker does not answer: ' + e.message);
    }
    let answer = {};
    try { answer = await res.json(); } catch (e) { /* not JSON: the status says enough */ }
    if (!res.ok) throw new ApiError(res.status, answer.error || res.statusText, answer.message);
    return answer;
  }

  // Runs an action from a form: the button is disabled meanwhile, the outcome shown in `out`
  // (data-testid action-result or action-error), then the page reloads its data.
  async function perform(out, button, run, describe) {
    button.disabled = true;
    replace(out);
    try {
      const answer = await run();
      replace(out, el('div', {class: 'notice ok', role: 'status', 'data-testid': 'action-result'}, describe(answer)));
      refresh();
      return answer;
    } catch (err) {
      replace(out, el('div', {class: 'error', role: 'alert', 'data-testid': 'action-error', 'data-error': err.error},
        el('strong', {}, err.error || 'Error'), err.message ? ': ' + err.message : ''));
      return null;
    } finally {
      button.disabled = false;
    }
  }

  function field(label, input) {
    return el('label', {class: 'field'}, el('span', {}, label), input);
  }

  // A dangerous action, GitHub style: the button is enabled only once the name is typed.
  function dangerZone(what, name, testid, run, describe) {
    const out = el('div');
    const confirm = el('input', {type: 'text', 'data-testid': testid + '-confirm', autocomplete: 'off',
      'aria-label': `Type ${name} to confirm`, placeholder: name, on: {input: () => { button.disabled = confirm.value !== name; }}});
    const button = el('button', {type: 'button', class: 'danger', disabled: true, 'data-testid': testid + '-submit',
      on: {click: () => perform(out, button, run, describe)}}, what);
    return el('div', {class: 'danger-zone'}, el('p', {}, `${what}: this cannot be undone. Type `,
      el('code', {}, name), ' to confirm.'), el('div', {class: 'form-row'}, confirm, button), out);
  }

  // "k=v" per line -> {k: v}
  function parseConfigs(text) {
    const configs = {};
    for (const line of text.split('\n').map((l) => l.trim()).filter(Boolean)) {
      const eq = line.indexOf('=');
      if (eq <= 0) throw new ApiError(0, 'BAD_REQUEST', `not name=value: ${line}`);
      configs[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
    }
    return configs;
  }

  function createTopicForm() {
    const out = el('div');
    const name = el('input', {type: 'text', required: true, 'data-testid': 'create-topic-name', autocomplete: 'off'});
    const partitions = el('input', {type: 'number', min: 1, placeholder: 'broker default', 'data-testid': 'create-topic-partitions'});
    const rf = el('input', {type: 'number', min: 1, placeholder: 'broker default', 'data-testid': 'create-topic-rf'});
    const configs = el('textarea', {rows: 3, placeholder: 'retention.ms=86400000', 'data-testid': 'create-topic-configs'});
    const button = el('button', {type: 'submit', 'data-testid': 'create-topic-submit'}, 'Create topic');
    const form = el('form', {class: 'action-form', on: {submit: (e) => {
      e.preventDefault();
      perform(out, button, () => act('POST', 'topics', {name: name.value.trim(),
        partitions: partitions.value ? Number(partitions.value) : undefined,
        replicationFactor: rf.value ? Number(rf.value) : undefined, configs: parseConfigs(configs.value)}),
      (t) => ['Created topic ', link('#/topics/' + encodeURIComponent(t.name), t.name),
        ` (${t.partitions} partitions, replication ${t.replicationFactor}).`]);
    }}}, el('div', {class: 'form-row'}, field('Name', name), field('Partitions', partitions), field('Replication factor', rf)),
    field('Configs (name=value per line)', configs), el('div', {class: 'form-row'}, button), out);
    return el('details', {class: 'card actions', 'data-testid': 'create-topic'}, el('summary', {}, 'Create topic'), form);
  }

  function topicActions(name, enc, setConfig) {
    const out = el('div');
    const count = el('input', {type: 'number', min: 1, 'data-testid': 'add-partitions-count', 'aria-label': 'New partition count'});
    const grow = el('button', {type: 'button', 'data-testid': 'add-partitions-submit', on: {click: () =>
      perform(out, grow, () => act('POST', `topics/${enc}/partitions`, {count: Number(count.value)}),
        (r) => `${r.partitions} partitions now.`)}}, 'Add partitions');
    const cfgName = el('input', {type: 'text', 'data-testid': 'config-name', 'aria-label': 'Config name', placeholder: 'retention.ms'});
    const cfgValue = el('input', {type: 'text', 'data-testid': 'config-value', 'aria-label': 'Config value'});
    const set = el('button', {type: 'button', 'data-testid': 'config-set', on: {click: () =>
      perform(out, set, () => act('POST', `topics/${enc}/configs`, {set: {[cfgName.value.trim()]: cfgValue.value}}),
        () => `Set ${cfgName.value.trim()}.`)}}, 'Set');
    const unset = el('button', {type: 'button', 'data-testid': 'config-delete', on: {click: () =>
      perform(out, unset, () => act('POST', `topics/${enc}/configs`, {delete: [cfgName.value.trim()]}),
        () => `Deleted ${cfgName.value.trim()}: the default applies.`)}}, 'Delete (use default)');
    setConfig.fill = (n, v) => { cfgName.value = n; cfgValue.value = v == null ? '' : v; cfgValue.focus(); };
    const partition = el('select', {'data-testid': 'delete-records-partition', 'aria-label': 'Partition'});
    const before = el('input', {type: 'number', min: -1, 'data-testid': 'delete-records-offset', 'aria-label': 'Before offset',
      placeholder: 'offset (-1: end)'});
    const trim = el('button', {type: 'button', 'data-testid': 'delete-records-submit', on: {click: () =>
      perform(out, trim, () => act('POST', `topics/${enc}/delete-records`,
        {partitions: [{partition: Number(partition.value), offset: Number(before.value)}]}),
      (r) => r.partitions.map((p) => `Partition ${p.partition} now starts at ${fmt.num(p.lowWatermark)}.`).join(' '))}},
    'Delete records before');
    const node = section('Actions', 'topic-actions',
      el('div', {class: 'form-row'}, field('Partitions', count), grow),
      el('div', {class: 'form-row'}, field('Config', cfgName), field('Value', cfgValue), set, unset),
      el('div', {class: 'form-row'}, field('Partition', partition), field('Offset', before), trim),
      out,
      dangerZone('Delete topic', name, 'delete-topic', () => act('DELETE', `topics/${enc}`), () => {
        setTimeout(() => { location.hash = '#/topics'; }, 1500);
        return `Deleted topic ${name}.`;
      }));
    return {node, setPartitions(ps) {
      if (partition.options.length === ps.length) return;
      replace(partition, ps.map((p) => el('option', {value: p}, String(p))));
    }};
  }

  function groupActions(id, enc) {
    const out = el('div');
    const strategy = el('select', {'data-testid': 'reset-strategy', 'aria-label': 'Reset to'},
      el('option', {value: 'earliest'}, 'earliest'), el('option', {value: 'latest'}, 'latest'),
      el('option', {value: 'offset'}, 'offset'), el('option', {value: 'timestamp'}, 'time'));
    const topic = el('input', {type: 'text', 'data-testid': 'reset-topic', placeholder: 'all the group\'s topics', 'aria-label': 'Topic'});
    const offset = el('input', {type: 'number', min: 0, 'data-testid': 'reset-offset', 'aria-label': 'Offset'});
    const time = el('input', {type: 'datetime-local', step: 1, 'data-testid': 'reset-timestamp', 'aria-label': 'Time'});
    const preview = el('div', {'data-testid': 'reset-preview'});
    let previewed = null;
    function body(dryRun) {
      const b = {strategy: strategy.value, dryRun};
      if (topic.value.trim()) b.topic = topic.value.trim();
      if (strategy.value === 'offset') b.offset = Number(offset.value);
      if (strategy.value === 'timestamp') b.timestamp = new Date(time.value).getTime();
      return b;
    }
    function showPlan(r) {
      replace(preview, table('reset-preview-table',
        [{label: 'Topic', col: 'topic'}, {label: 'Partition', num: true, col: 'partition'},
          {label: 'Current', num: true, col: 'current'}, {label: 'New offset', num: true, col: 'new'},
          {label: 'End offset', num: true, col: 'end'}, {label: 'Lag after', num: true, col: 'lag'}],
        r.partitions.map((p) => ({attrs: {'data-topic': p.topic, 'data-partition': p.partition}, cells: [
          p.topic, p.partition, fmt.num(p.currentOffset), {text: fmt.num(p.newOffset), value: p.newOffset},
          fmt.num(p.endOffset), fmt.num(p.lag)]}))));
    }
    const apply = el('button', {type: 'button', class: 'danger', disabled: true, 'data-testid': 'reset-apply', on: {click: async () => {
      const r = await perform(out, apply, () => act('POST', `groups/${enc}/offsets/reset`, body(false)),
        (a) => `Reset ${a.partitions.length} partition offsets.`);
      if (r) { showPlan(r); apply.disabled = true; }
    }}}, 'Apply');
    const look = el('button', {type: 'button', 'data-testid': 'reset-preview-submit', on: {click: async () => {
      apply.disabled = true;
      previewed = await perform(out, look, () => act('POST', `groups/${enc}/offsets/reset`, body(true)),
        () => 'Preview (dry run): nothing is changed until you apply.');
      if (previewed) { showPlan(previewed); apply.disabled = false; }
    }}}, 'Preview');
    for (const input of [strategy, topic, offset, time]) input.addEventListener('input', () => { apply.disabled = true; });
    return section('Actions', 'group-actions',
      el('h3', {}, 'Reset offsets'),
      el('p', {class: 'muted'}, 'As kafka-consumer-groups --reset-offsets: only while the group has no members.'),
      el('div', {class: 'form-row'}, field('Reset to', strategy), field('Topic', topic), field('Offset', offset),
        field('Time', time), look, apply),
      preview, out,
      dangerZone('Delete group', id, 'delete-group', () => act('DELETE', `groups/${enc}`), () => {
        setTimeout(() => { location.hash = '#/groups'; }, 1500);
        return `Deleted group ${id}.`;
      }));
  }

  function errorBox(err) {
    const lines = [];
    if (err.status === 401) {
      lines.push(el('strong', {}, 'Credentials are needed. '),
        'The broker asks for the username and password of its client listener (HTTP Basic); ' +
        'reload the page to sign in.');
    } else if (err.status === 403) {
      lines.push(el('strong', {}, 'Not allowed. '), 'The broker\'s ACLs do not let this principal see it.');
    } else {
      lines.push(el('strong', {}, err.error ? err.error + (err.status ? ` (HTTP ${err.status})` : '') : 'Error'));
    }
    if (err.message && err.status !== 401) lines.push(el('div', {class: 'error-message'}, err.message));
    return el('div', {class: 'error', role: 'alert', 'data-testid': 'error', 'data-status': err.status}, lines);
  }

  // ---- Charts (uPlot) -----------------------------------------------------------------------------

  const PALETTE = ['#2f6fb3', '#d9534f', '#3c9a5f', '#e08e0b', '#7b52ab', '#17a2b8', '#a0522d', '#c2185b'];
  const charts = new Set();
  // Y-axis steps for counts (lag): 1, 2, 5, 10, 20, 50, ... never 0.25 of a record.
  const WHOLE = Array.from({length: 45}, (_, i) => [1, 2, 5][i % 3] * 10 ** Math.floor(i / 3));

  // A line chart over time: {timestamps: [ms], series: {name: [values]}}; kept by its holder and fed
  // new data on each refresh, recreated only when the set of series changes.
  function timeChart(holder, title, yLabel, timestamps, seriesMap, whole) {
    const names = Object.keys(seriesMap);
    const data = [timestamps, ...names.map((n) => seriesMap[n])];
    holder.dataset.points = String(timestamps.length);
    holder.dataset.series = String(names.length);
    if (!timestamps.length || !names.length) {
      dropChart(holder);
      replace(holder, el('p', {class: 'muted chart-empty'}, 'No samples yet: the broker samples every few seconds.'));
      return;
    }
    const key = names.join('\u0000');
    if (holder._chart && holder._key === key) {
      holder._chart.setData(data);
      return;
    }
    dropChart(holder);
    holder.replaceChildren();
    const opts = {
      title, width: chartWidth(holder), height: 220, ms: 1,
      scales: {x: {time: true}, y: {range: (u, min, max) => [0, Math.max(1, max * 1.1)]}},
      axes: [{values: timeTicks, space: 90}, {label: yLabel, size: 60, ...(whole ? {incrs: WHOLE} : {})}],
      series: [{value: (u, v) => (v == null ? '–' : fmt.time(v))}, ...names.map((n, i) => ({label: n,
        // The total dashed: with one topic it is that topic's line, and both stay visible.
        stroke: n === TOTAL ? '#1d2430' : PALETTE[i % PALETTE.length], width: 2, ...(n === TOTAL ? {dash: [6, 4]} : {}),
        spanGaps: false, points: {show: timestamps.length < 3}}))],
      legend: {live: true},
    };
    holder._chart = new uPlot(opts, data, holder);
    holder._key = key;
    charts.add(holder);
    sizer.observe(holder);
  }

  // Bars, one per category (e.g. lag per partition), labels on the x axis.
  function barChart(holder, title, yLabel, labels, values) {
    holder.dataset.points = String(values.length);
    holder.dataset.series = '1';
    dropChart(holder);
    holder.replaceChildren();
    if (!values.length) return;
    const xs = labels.map((_, i) => i);
    // Every label when they fit (about 80 px each), else every second, third, ...
    const xLabels = (u, ticks) => {
      const step = Math.max(1, Math.ceil(80 * labels.length / Math.max(1, u.width - 80)));
      return ticks.map((t) => (Number.isInteger(t) && t % step === 0 ? labels[t] || '' : ''));
    };
    const opts = {
      title, width: chartWidth(holder), height: 220,
      scales: {x: {time: false, range: [-0.5, xs.length - 0.5]},
        y: {range: (u, min, max) => [0, Math.max(1, max * 1.1)]}},
      axes: [{values: xLabels, splits: () => xs}, {label: yLabel, size: 60, incrs: WHOLE}],
      series: [{label: 'partition', value: (u, v) => (v == null ? '–' : labels[v])},
        {label: yLabel, fill: PALETTE[0] + 'cc', stroke: PALETTE[0], width: 1,
          paths: uPlot.paths.bars({size: [0.6, 60]}), points: {show: false}}],
      legend: {live: true},
    };
    holder._chart = new uPlot(opts, [xs, values], holder);
    holder._key = null;
    charts.add(holder);
    sizer.observe(holder);
  }

  // Clock times on the x axis, with the date only when the history spans days.
  function timeTicks(u, ticks, space, axis, incr) {
    const days = (u.scales.x.max - u.scales.x.min) > 86400_000;
    return ticks.map((t) => {
      const s = fmt.time(t);
      return days ? s.slice(5, 16) : incr < 60_000 ? s.slice(11, 19) : s.slice(11, 16);
    });
  }

  // A history answer, or the error that kept it: a chart that cannot be drawn does not hide the tables.
  function history(path) {
    return api(path).catch((err) => err);
  }

  function noHistory(holder, h) {
    if (!(h instanceof Error)) return false;
    dropChart(holder);
    holder.dataset.points = '0';
    replace(holder, el('p', {class: 'muted chart-empty', 'data-testid': 'history-error'},
      'No history: ', h.message || h.error));
    return true;
  }

  function dropChart(holder) {
    if (holder._chart) {
      holder._chart.destroy();
      holder._chart = null;
    }
    charts.delete(holder);
    sizer.unobserve(holder);
  }

  function chartWidth(holder) {
    return Math.max(240, (holder.clientWidth || holder.parentElement.clientWidth || 600) - 4);
  }

  // A chart follows its holder's width (window resized, phone turned, layout settled after the first draw).
  const sizer = new ResizeObserver((entries) => {
    for (const {target: h} of entries) {
      const width = chartWidth(h);
      if (h._chart && Math.abs(h._chart.width - width) > 1) h._chart.setSize({width, height: 220});
    }
  });

  function chartHolder(testid) {
    return el('div', {class: 'chart', 'data-testid': testid});
  }

  // ---- Views --------------------------------------------------------------------------------------
  // A view builds its skeleton once (mount) and fills it on every refresh (update); what the user
  // typed or paged through (the record browser) lives outside the refreshed parts.

  function overviewView() {
    const summary = el('div', {class: 'stats'});
    const brokers = el('div');
    const chart = chartHolder('chart-records-in');
    return {
      title: 'Overview',
      mount: () => [
        el('h1', {}, 'Cluster'),
        summary,
        section('Brokers', 'brokers', brokers),
        section('Records in per second, per topic', 'records-in', chart),
      ],
      async update() {
        const [c, h] = await Promise.all([api('cluster'), history('history/topics')]);
        replace(summary,
          stat('Cluster id', c.clusterId, 'cluster-id', false, 'wide mono'),
          stat('Controller', c.controllerId, 'controller-id'),
          stat('Brokers', c.brokers.length, 'count-brokers'),
          stat('Topics', c.topics, 'count-topics'),
          stat('Partitions', c.partitions, 'count-partitions'),
          stat('Under-replicated', c.underReplicatedPartitions, 'count-urp', c.underReplicatedPartitions > 0),
          stat('Offline', c.offlinePartitions, 'count-offline', c.offlinePartitions > 0));
        replace(brokers, table('brokers-table',
          [{label: 'Id', num: true, col: 'id'}, {label: 'Host', col: 'host'}, {label: 'Rack', col: 'rack'},
            {label: 'Role', col: 'role'}],
          c.brokers.map((b) => ({attrs: {'data-broker-id': b.id}, cells: [b.id, `${b.host}:${b.port}`, b.rack || '–',
            [b.id === c.controllerId ? 'controller' : '', b.id === c.self ? 'serving this page' : '']
              .filter(Boolean).join(', ') || '–']}))));
        if (noHistory(chart, h)) return;
        timeChart(chart, '', 'records/s', h.timestamps, userTopics(h.series));
      },
    };
  }

  // Internal topics (__consumer_offsets, ...) would flatten the users' lines: left out of the chart.
  function userTopics(series) {
    return Object.fromEntries(Object.entries(series || {}).filter(([n]) => !n.startsWith('__')));
  }

  function stat(label, value, testid, warn, cls) {
    return el('div', {class: ['stat', warn ? 'warn' : '', cls || ''].join(' ').trim()},
      el('div', {class: 'stat-label'}, label),
      el('div', {class: 'stat-value', 'data-testid': testid}, value == null ? '–' : String(value)));
  }

  function topicsView() {
    const list = el('div');
    let topics = [];
    const filter = el('input', {type: 'search', placeholder: 'Filter by name', 'data-testid': 'topics-filter',
      'aria-label': 'Filter topics by name', on: {input: draw}});
    const internal = el('input', {type: 'checkbox', 'data-testid': 'show-internal', on: {change: draw}});
    function draw() {
      const q = filter.value.trim().toLowerCase();
      const shown = topics.filter((t) => (internal.checked || !t.internal) && t.name.toLowerCase().includes(q));
      replace(list, table('topics-table',
        [{label: 'Topic', col: 'name'}, {label: 'Partitions', num: true, col: 'partitions'},
          {label: 'Replication', num: true, col: 'replication'}, {label: 'Records', num: true, col: 'records'},
          {label: 'Size', num: true, col: 'size'}, {label: 'Under-replicated', num: true, col: 'urp'}],
        shown.map((t) => ({attrs: {'data-topic': t.name}, cells: [
          link('#/topics/' + encodeURIComponent(t.name), t.name, {class: t.internal ? 'internal' : null}),
          t.partitions, t.replicationFactor, {text: fmt.num(t.records), value: t.records},
          {text: fmt.bytes(t.sizeBytes), value: t.sizeBytes, title: fmt.num(t.sizeBytes) + ' bytes'},
          {text: t.underReplicatedPartitions, cls: t.underReplicatedPartitions > 0 ? 'warn' : ''}]})),
        topics.length ? 'No topic matches.' : 'No topics yet.'));
    }
    return {
      title: 'Topics',
      mount: () => [
        el('h1', {}, 'Topics'),
        readOnly ? null : createTopicForm(),
        el('section', {class: 'card'}, el('div', {class: 'toolbar'}, filter, el('label', {}, internal, ' internal topics')),
          list),
      ],
      async update() {
        topics = (await api('topics')).topics.slice().sort((a, b) => a.name.localeCompare(b.name));
        draw();
      },
    };
  }

  function topicView(name) {
    const enc = encodeURIComponent(name);
    const info = el('p', {class: 'muted'});
    const partitions = el('div');
    const chart = chartHolder('chart-topic-records-in');
    const configs = el('div');
    const browser = recordBrowser(name);
    const configForm = {fill: null};
    const actions = readOnly ? null : topicActions(name, enc, configForm);
    return {
      title: name,
      mount: () => [
        el('p', {class: 'crumbs'}, link('#/topics', 'Topics'), ' / '),
        el('h1', {'data-testid': 'topic-name'}, name),
        info,
        section('Partitions', 'partitions', partitions),
        section('Records in per second', 'topic-records-in', chart),
        browser.node,
        el('details', {class: 'card', open: !readOnly}, el('summary', {}, 'Configuration'), configs),
        actions && actions.node,
      ],
      async update() {
        const [t, h] = await Promise.all([api('topics/' + enc), history('history/topics')]);
        replace(info, `Topic id ${t.topicId || '–'}`, t.internal ? ' · internal' : '');
        replace(partitions, table('partitions-table',
          [{label: 'Partition', num: true, col: 'partition'}, {label: 'Leader', num: true, col: 'leader'},
            {label: 'Epoch', num: true, col: 'epoch'}, {label: 'Replicas', col: 'replicas'}, {label: 'ISR', col: 'isr'},
            {label: 'Offline', col: 'offline'}, {label: 'Start offset', num: true, col: 'start'},
            {label: 'End offset', num: true, col: 'end'}, {label: 'Size', num: true, col: 'size'}],
          t.partitions.map((p) => ({attrs: {'data-partition': p.partition}, cells: [
            p.partition, {text: p.leader < 0 ? 'none' : p.leader, cls: p.leader < 0 ? 'warn' : ''}, p.leaderEpoch,
            fmt.list(p.replicas),
            {text: fmt.list(p.isr), cls: p.isr.length < p.replicas.length ? 'warn' : ''},
            {text: fmt.list(p.offlineReplicas), cls: p.offlineReplicas.length ? 'warn' : ''},
            {text: fmt.num(p.startOffset), value: p.startOffset}, {text: fmt.num(p.endOffset), value: p.endOffset},
            {text: fmt.bytes(p.sizeBytes), value: p.sizeBytes, title: fmt.num(p.sizeBytes) + ' bytes'}]}))));
        if (!noHistory(chart, h)) {
          timeChart(chart, '', 'records/s', h.timestamps || [], h.series && h.series[name] ? {[name]: h.series[name]} : {});
        }
        const configColumns = [{label: 'Name', col: 'name'}, {label: 'Value', col: 'value'}, {label: 'Source', col: 'source'}];
        if (actions) configColumns.push({label: '', col: 'edit'});
        replace(configs, table('configs-table', configColumns,
        (t.configs || []).map((c) => ({attrs: {'data-config': c.name}, cells: [c.name,
          c.value == null ? {text: '(sensitive)', cls: 'muted'} : c.value,
          {text: c.source, cls: c.source === 'DEFAULT' || c.source === 'DEFAULT_CONFIG' ? 'muted' : ''},
          actions ? el('button', {type: 'button', class: 'small', 'data-testid': 'config-edit',
            on: {click: () => configForm.fill(c.name, c.value)}}, 'Edit') : null].filter((x) => x !== null)}))));
        browser.setPartitions(t.partitions.map((p) => p.partition));
        if (actions) actions.setPartitions(t.partitions.map((p) => p.partition));
      },
    };
  }

  // The record browser: a page of a partition's records from an offset, from a time, or the last
  // ones. Fetched only on the user's asking, not by the 5 s refresh, so that a page stays put.
  function recordBrowser(topic) {
    const partition = el('select', {'data-testid': 'rb-partition', 'aria-label': 'Partition'});
    const mode = el('select', {'data-testid': 'rb-mode', 'aria-label': 'Start at'},
      el('option', {value: 'latest'}, 'last records'), el('option', {value: 'offset'}, 'from offset'),
      el('option', {value: 'timestamp'}, 'from time'));
    const from = el('input', {type: 'text', 'data-testid': 'rb-from', 'aria-label': 'Offset or time',
      value: '0', size: 26, spellcheck: 'false', disabled: true});
    const isolation = el('select', {'data-testid': 'rb-isolation', 'aria-label': 'Isolation'},
      el('option', {value: 'read_uncommitted'}, 'read_uncommitted'),
      el('option', {value: 'read_committed'}, 'read_committed'));
    const limit = el('select', {'data-testid': 'rb-limit', 'aria-label': 'Records per page'},
      [10, 20, 50, 100, 200, 500].map((n) => el('option', {value: n, selected: n === PAGE_SIZE}, `${n} per page`)));
    const load = el('button', {type: 'submit', 'data-testid': 'rb-load'}, 'Read');
    const prev = el('button', {type: 'button', 'data-testid': 'rb-prev', disabled: true}, '← Previous');
    const next = el('button', {type: 'button', 'data-testid': 'rb-next', disabled: true}, 'Next →');
    const status = el('div', {class: 'rb-status', 'data-testid': 'rb-status', 'aria-live': 'polite'});
    const results = el('div', {'data-testid': 'rb-results'});
    const form = el('form', {class: 'toolbar', 'data-testid': 'rb-form'},
      el('label', {}, 'Partition ', partition), mode, from, isolation, limit, load);
    let last = null;   // the last answer, for next/previous
    let back = [];     // offsets of the pages before this one, for previous after next
    let busy = false;
    let started = false;

    function placeholder() {
      from.disabled = mode.value === 'latest';
      from.placeholder = mode.value === 'timestamp' ? 'YYYY-MM-DD HH:MM:SS(.mmm) or epoch ms' : 'offset';
      if (mode.value === 'timestamp' && /^\d{1,12}$/.test(from.value)) from.value = fmt.time(Date.now() - 3600_000);
      if (mode.value === 'offset' && !/^\d+$/.test(from.value)) from.value = '0';
    }
    mode.addEventListener('change', placeholder);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      back = [];
      let q;
      try {
        q = query();
      } catch (err) {
        replace(status, el('span', {class: 'error-inline', 'data-testid': 'rb-input-error'}, err.message));
        return;
      }
      read(q);
    });
    next.addEventListener('click', () => {
      if (!last) return;
      back.push(last.records.length ? last.records[0].offset : last.nextOffset);
      read({offset: last.nextOffset});
    });
    prev.addEventListener('click', () => {
      if (!last) return;
      const first = last.records.length ? last.records[0].offset : last.nextOffset;
      const offset = back.length ? back.pop() : Math.max(last.startOffset, first - Number(limit.value));
      read({offset});
    });

    function query() {
      if (mode.value === 'latest') return {};
      const v = from.value.trim();
      if (mode.value === 'offset') {
        if (!/^\d+$/.test(v)) throw new Error('An offset is a whole number, 0 or more.');
        return {offset: Number(v)};
      }
      if (/^\d{10,}$/.test(v)) return {timestamp: Number(v)};
      // "2024-12-05 14:03:07.123" in local time, as the table shows times.
      const t = new Date(v.replace(' ', 'T')).getTime();
      if (Number.isNaN(t)) throw new Error('A time is YYYY-MM-DD HH:MM[:SS[.mmm]] (local time) or epoch milliseconds.');
      return {timestamp: t};
    }

    async function read(q) {
      if (busy || partition.value === '') return;
      busy = true;
      const params = new URLSearchParams({partition: partition.value, limit: limit.value, isolation: isolation.value});
      if (q.offset != null) params.set('offset', q.offset);
      if (q.timestamp != null) params.set('timestamp', q.timestamp);
      replace(status, 'Reading…');
      results.dataset.loaded = 'false';
      try {
        const r = await api(`topics/${encodeURIComponent(topic)}/records?${params}`);
        last = r;
        if (q.offset != null) { mode.value = 'offset'; from.value = String(q.offset); placeholder(); }
        drawRecords(r);
      } catch (err) {
        replace(status);
        replace(results, errorBox(err));
      } finally {
        busy = false;
        results.dataset.loaded = 'true';
      }
    }

    function drawRecords(r) {
      const rs = r.records;
      const range = rs.length ? `offsets ${rs[0].offset}–${rs[rs.length - 1].offset}` : 'no records';
      replace(status, `Partition ${r.partition}: ${range} (log from ${r.startOffset} to ${r.endOffset})`);
      prev.disabled = !rs.length ? r.nextOffset <= r.startOffset : rs[0].offset <= r.startOffset;
      next.disabled = r.nextOffset >= r.endOffset;
      replace(results, table('records-table',
        [{label: 'Offset', num: true, col: 'offset'}, {label: 'Timestamp', col: 'timestamp'},
          {label: 'Key', col: 'key'}, {label: 'Value', col: 'value'}, {label: 'Headers', col: 'headers'}],
        rs.map((x) => ({attrs: {'data-offset': x.offset}, cells: [
          x.offset,
          {text: fmt.time(x.timestamp), value: x.timestamp,
            title: `${x.timestamp} (${x.timestampType === 'LOG_APPEND_TIME' ? 'log append time' : 'create time'})`},
          payload(x.key, x.keyEncoding, x.keyTruncated),
          payload(x.value, x.valueEncoding, x.valueTruncated),
          headers(x.headers)]})),
        'No records there.'));
    }

    return {
      node: section('Records', 'record-browser', form, el('div', {class: 'toolbar'}, prev, next, status), results),
      // Keeps the chosen partition across refreshes; the first time, shows the first partition's last records.
      setPartitions(ids) {
        const current = partition.value;
        const known = Array.from(partition.options).map((o) => o.value).join(',');
        if (known !== ids.join(',')) {
          replace(partition, ids.map((id) => el('option', {value: id}, String(id))));
          if (ids.map(String).includes(current)) partition.value = current;
        }
        if (!started && ids.length) {
          started = true;
          read({});
        }
      },
    };
  }

  // A key, value or header value: text, base64 with a marker when binary, marked when cut.
  function payload(v, encoding, truncated, inline) {
    if (v == null) return el('span', {class: 'null'}, 'null');
    const parts = [el('span', {class: 'payload'}, v)];
    if (encoding === 'base64') {
      parts.unshift(el('span', {class: 'badge', 'data-testid': 'binary-marker', title: 'Not UTF-8: shown as base64'}, 'base64'));
    }
    if (truncated) parts.push(el('span', {class: 'badge warn', 'data-testid': 'truncated-marker',
      title: 'Longer than 64 KiB: cut there'}, 'truncated'));
    return el(inline ? 'span' : 'div', {class: 'cell-payload'}, parts);
  }

  function headers(hs) {
    if (!hs || !hs.length) return el('span', {class: 'null'}, '–');
    return el('ul', {class: 'headers'}, hs.map((h) => el('li', {'data-header': h.key},
      el('span', {class: 'header-key'}, h.key), ': ', payload(h.value, h.valueEncoding, false, true))));
  }

  function groupsView() {
    const list = el('div');
    return {
      title: 'Groups',
      mount: () => [el('h1', {}, 'Groups'), el('section', {class: 'card'}, list)],
      async update() {
        const gs = (await api('groups')).groups.slice().sort((a, b) => a.groupId.localeCompare(b.groupId));
        replace(list, table('groups-table',
          [{label: 'Group', col: 'group'}, {label: 'Type', col: 'type'}, {label: 'State', col: 'state'},
            {label: 'Members', num: true, col: 'members'}, {label: 'Coordinator', num: true, col: 'coordinator'},
            {label: 'Lag', num: true, col: 'lag'}],
          gs.map((g) => ({attrs: {'data-group': g.groupId}, cells: [
            link('#/groups/' + encodeURIComponent(g.groupId), g.groupId), g.type, stateCell(g.state), g.members,
            g.coordinator, {text: fmt.num(g.lag), value: g.lag}]})),
          'No groups yet.'));
      },
    };
  }

  function stateCell(state) {
    const cls = /^(Stable|CompleteCommit)$/.test(state || '') ? 'ok' : /^(Dead|Unknown|PrepareEpochFence)$/.test(state || '') ? 'bad' : '';
    return el('span', {class: ('state ' + cls).trim()}, state || '–');
  }

  function groupView(id) {
    const enc = encodeURIComponent(id);
    const summary = el('div', {class: 'stats'});
    const members = el('div');
    const offsets = el('div');
    const bars = chartHolder('chart-lag-partitions');
    const lagHistory = chartHolder('chart-lag-history');
    const offsetsTitle = el('h2', {}, 'Offsets and lag per partition');
    return {
      title: id,
      mount: () => [
        el('p', {class: 'crumbs'}, link('#/groups', 'Groups'), ' / '),
        el('h1', {'data-testid': 'group-id'}, id),
        summary,
        section('Members', 'members', members),
        el('section', {class: 'card', 'data-testid': 'offsets'}, offsetsTitle, offsets, bars),
        section('Lag over time', 'lag-history', lagHistory),
        readOnly ? null : groupActions(id, enc),
      ],
      async update() {
        const [g, h] = await Promise.all([api('groups/' + enc), history('history/groups/' + enc)]);
        const share = g.type === 'share';
        const total = g.offsets.reduce((s, o) => s + (o.lag || 0), 0);   // null: no end offset known
        replace(summary,
          stat('Type', g.type, 'group-type'),
          el('div', {class: 'stat'}, el('div', {class: 'stat-label'}, 'State'),
            el('div', {class: 'stat-value', 'data-testid': 'group-state'}, stateCell(g.state))),
          stat('Coordinator', g.coordinator, 'group-coordinator'),
          stat('Assignor', g.assignor || '–', 'group-assignor'),
          stat('Members', g.members.length, 'group-members'),
          stat('Total lag', fmt.num(total), 'group-lag', false));
        replace(members, table('members-table',
          [{label: 'Member', col: 'member'}, {label: 'Client', col: 'client'}, {label: 'Host', col: 'host'},
            {label: 'Instance', col: 'instance'}, {label: 'Assignment', col: 'assignment'}],
          g.members.map((m) => ({attrs: {'data-member': m.memberId}, cells: [
            {text: m.memberId, cls: 'mono'}, m.clientId, m.host, m.instanceId || '–',
            el('ul', {class: 'assignment'}, (m.assignment || []).map((a) => el('li', {'data-topic': a.topic},
              link('#/topics/' + encodeURIComponent(a.topic), a.topic), ': ', fmt.list(a.partitions))))]})),
          'No members: the group is empty.'));
        replace(offsetsTitle, share ? 'Share-partition start offsets and lag' : 'Offsets and lag per partition');
        const rows = g.offsets.slice().sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
        replace(offsets, table('offsets-table',
          [{label: 'Topic', col: 'topic'}, {label: 'Partition', num: true, col: 'partition'},
            {label: share ? 'Start offset' : 'Committed', num: true, col: 'committed'},
            {label: 'End offset', num: true, col: 'end'}, {label: 'Lag', num: true, col: 'lag'},
            {label: 'Metadata', col: 'metadata'}],
          rows.map((o) => ({attrs: {'data-topic': o.topic, 'data-partition': o.partition}, cells: [
            link('#/topics/' + encodeURIComponent(o.topic), o.topic), o.partition,
            {text: o.committedOffset == null || o.committedOffset < 0 ? '–' : fmt.num(o.committedOffset), value: o.committedOffset},
            {text: fmt.num(o.endOffset), value: o.endOffset},
            {text: fmt.num(o.lag), value: o.lag, cls: o.lag > 0 ? 'lagging' : ''},
            o.metadata || '']})),
          'No committed offsets.'));
        barChart(bars, '', 'lag', rows.map((o) => `${o.topic}-${o.partition}`), rows.map((o) => o.lag || 0));
        if (!noHistory(lagHistory, h)) {
          // Drawn last (on top); a topic name cannot have a space, so no topic is called TOTAL.
          timeChart(lagHistory, '', 'lag (records)', h.timestamps || [], Object.assign({}, h.series, {[TOTAL]: h.total || []}), true);
        }
      },
    };
  }

  function transactionsView() {
    const list = el('div');
    return {
      title: 'Transactions',
      mount: () => [el('h1', {}, 'Transactions'), el('section', {class: 'card'}, list)],
      async update() {
        const ts = (await api('transactions')).transactions.slice()
          .sort((a, b) => a.transactionalId.localeCompare(b.transactionalId));
        replace(list, table('transactions-table',
          [{label: 'Transactional id', col: 'id'}, {label: 'State', col: 'state'},
            {label: 'Producer id', num: true, col: 'producer-id'}, {label: 'Epoch', num: true, col: 'epoch'},
            {label: 'Timeout', num: true, col: 'timeout'}, {label: 'Coordinator', num: true, col: 'coordinator'},
            {label: 'Partitions', col: 'partitions'}],
          ts.map((t) => ({attrs: {'data-transactional-id': t.transactionalId}, cells: [
            t.transactionalId, stateCell(t.state), t.producerId, t.producerEpoch,
            {text: `${t.timeoutMs / 1000} s`, value: t.timeoutMs}, t.coordinator,
            (t.partitions || []).length
              ? el('ul', {class: 'assignment'}, t.partitions.map((p) => el('li', {},
                link('#/topics/' + encodeURIComponent(p.topic), p.topic), '-' + p.partition)))
              : '–']})),
          'No transactional ids.'));
      },
    };
  }

  function notFoundView(hash) {
    return {title: 'Not found', mount: () => [el('h1', {}, 'No such page'), el('p', {}, 'Nothing at ', hash, '.')],
      update: async () => {}};
  }

  // ---- Routing and refresh ------------------------------------------------------------------------

  function route(hash) {
    const parts = hash.replace(/^#\/?/, '').split('/');
    const arg = parts.length > 1 ? safeDecode(parts.slice(1).join('/')) : null;
    const one = arg != null && arg !== '';
    switch (parts[0]) {
      case '': return {name: 'overview', nav: 'overview', view: overviewView()};
      case 'topics': return one ? {name: 'topic', nav: 'topics', view: topicView(arg)}
        : {name: 'topics', nav: 'topics', view: topicsView()};
      case 'groups': return one ? {name: 'group', nav: 'groups', view: groupView(arg)}
        : {name: 'groups', nav: 'groups', view: groupsView()};
      case 'transactions': return {name: 'transactions', nav: 'transactions', view: transactionsView()};
      default: return {name: 'none', nav: null, view: notFoundView(hash)};
    }
  }

  function safeDecode(s) {
    try { return decodeURIComponent(s); } catch (e) { return s; }
  }

  let current = null;   // {view, status, token}
  let paused = false;
  let timer = null;
  let token = 0;

  function show() {
    const {name, nav, view: v} = route(location.hash);
    for (const h of Array.from(charts)) dropChart(h);
    const status = el('div', {class: 'view-status', 'data-testid': 'view-status'});
    replace(view, status, v.mount());
    view.dataset.view = name;
    view.dataset.hash = location.hash;   // lets a test (or a user script) tell this page from the one before
    view.dataset.loaded = 'false';
    document.title = `${v.title} · Krill`;
    for (const a of document.querySelectorAll('nav a')) {
      a.classList.toggle('active', a.dataset.route === nav);
      if (a.dataset.route === nav) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
    }
    current = {view: v, status, token: ++token};
    refresh();
  }

  async function refresh() {
    clearTimeout(timer);
    const c = current;
    if (!c) return;
    if (!c.loaded) replace(c.status, el('p', {class: 'muted loading', 'data-testid': 'loading'}, 'Loading…'));
    unavailable.clear();
    try {
      await c.view.update();
      if (c.token !== token) return;   // the user went elsewhere meanwhile
      c.loaded = true;
      replace(c.status, unavailable.size ? el('div', {class: 'notice', role: 'status', 'data-testid': 'partial'},
        el('strong', {}, 'Partial answer. '), `Broker ${[...unavailable].sort().join(', ')} did not answer in time: ` +
        'what only it knows is missing below.') : null);
      view.dataset.loaded = 'true';
      replace(lastUpdated, 'Updated ' + fmt.time(Date.now()).slice(11, 19));
      lastUpdated.classList.remove('stale');
    } catch (err) {
      if (c.token !== token) return;
      console.error(err);
      // A failed refresh keeps the last data on the page, marked stale.
      replace(c.status, errorBox(err));
      view.dataset.loaded = c.loaded ? 'true' : 'error';
      lastUpdated.classList.add('stale');
    } finally {
      if (c.token === token && !paused) timer = setTimeout(refresh, REFRESH_MS);
    }
  }

  toggle.addEventListener('click', () => {
    paused = !paused;
    toggle.setAttribute('aria-pressed', String(paused));
    replace(toggle, paused ? 'Resume' : 'Pause');
    if (paused) clearTimeout(timer); else refresh();
  });

  async function whoAmI() {
    try {
      const me = await api('me');
      if (me.authenticated) replace(document.getElementById('principal'), me.principal);
      readOnly = me.readOnly !== false;
    } catch (e) { /* the views say what went wrong; the page stays read-only */ }
  }

  window.addEventListener('hashchange', show);
  whoAmI().then(show);
})();
