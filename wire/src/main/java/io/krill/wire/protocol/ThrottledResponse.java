package io.krill.wire.protocol;

/**
 * A response with a top-level {@code throttle_time_ms}: how long the client should wait before its next
 * request because it went over a quota (KIP-219). Generated responses that have the field implement it,
 * so the broker sets it in one place for every API.
 */
public interface ThrottledResponse {

    int throttleTimeMs();

    ApiMessage setThrottleTimeMs(int throttleTimeMs);
}
