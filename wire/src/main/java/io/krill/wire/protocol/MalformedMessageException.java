package io.krill.wire.protocol;

/**
 * The one exception {@link Message#read} throws for bad input: truncated buffers, negative or
 * oversized lengths, over-long varints, array counts the remaining bytes cannot hold, nulls in
 * non-nullable fields, out-of-order or inconsistent tagged fields, and versions the schema does not
 * define. After it is thrown the buffer's reader index and the message's fields are unspecified.
 *
 * <p>Stack traces are not filled in: this is thrown on untrusted input, possibly at a high rate.
 */
public final class MalformedMessageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MalformedMessageException(String message) {
        super(message, null, false, false);
    }

    public MalformedMessageException(String message, Throwable cause) {
        super(message, cause, false, false);
    }
}
