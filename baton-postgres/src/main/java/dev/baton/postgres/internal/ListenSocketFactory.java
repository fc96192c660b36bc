package dev.baton.postgres.internal;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import javax.net.SocketFactory;

/**
 * The sockets of the LISTEN connection ({@link PgListener}), given to pgjdbc through its {@code socketFactory}
 * property: plain TCP sockets whose 1 ms reads do not wait when nothing has arrived.
 *
 * <p>Why: after each notification it reads, pgjdbc's {@code getNotifications} asks {@code PGStream.hasMessagePending()}
 * whether another message follows, and unless bytes are already buffered that sets a 1 ms socket timeout and reads. On
 * a LISTEN connection nothing usually follows, so the read times out, and every notification reaches its caller at
 * least 1 ms (in practice 1.1-1.3 ms) after it arrived. A socket whose read, under that 1 ms timeout, finds nothing in
 * the kernel's receive buffer gives the same answer at once: a {@link SocketTimeoutException}, exactly what the 1 ms
 * read would have ended with, so pgjdbc goes on as before and returns the notification. A message that arrives a
 * moment later is read by the next {@code getNotifications} call, which blocks on the socket as usual: nothing is lost
 * or delayed. Every other read (a longer timeout, or bytes waiting) goes to the socket unchanged.
 *
 * <p>Public only because pgjdbc creates it by class name; not part of the store's API.
 */
public final class ListenSocketFactory extends SocketFactory {

    /** The timeout pgjdbc's peek sets: {@code PGStream.hasMessagePending()} uses exactly 1 ms. */
    static final int PEEK_TIMEOUT_MILLIS = 1;

    /** pgjdbc's {@code socketFactory} connection property. */
    static final String PROPERTY = "socketFactory";

    /** Created by pgjdbc through this constructor. */
    public ListenSocketFactory() {
    }

    @Override
    public Socket createSocket() {
        return new PeekSocket();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        Socket socket = createSocket();
        socket.connect(new InetSocketAddress(host, port));
        return socket;
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        Socket socket = createSocket();
        socket.bind(new InetSocketAddress(localHost, localPort));
        socket.connect(new InetSocketAddress(host, port));
        return socket;
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        Socket socket = createSocket();
        socket.connect(new InetSocketAddress(host, port));
        return socket;
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        Socket socket = createSocket();
        socket.bind(new InetSocketAddress(localAddress, localPort));
        socket.connect(new InetSocketAddress(address, port));
        return socket;
    }

    /** A plain socket that remembers its read timeout, to tell pgjdbc's peek from a real wait. */
    static final class PeekSocket extends Socket {

        private volatile int readTimeout;
        private InputStream input;

        @Override
        public synchronized void setSoTimeout(int timeout) throws SocketException {
            super.setSoTimeout(timeout);
            readTimeout = timeout;
        }

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (input == null) {
                input = new PeekStream(super.getInputStream(), this);
            }
            return input;
        }

        boolean peeking() {
            return readTimeout == PEEK_TIMEOUT_MILLIS;
        }
    }

    /** Ends a peek at once when the kernel holds no bytes for this socket. */
    private static final class PeekStream extends FilterInputStream {

        private final PeekSocket socket;

        PeekStream(InputStream in, PeekSocket socket) {
            super(in);
            this.socket = socket;
        }

        @Override
        public int read() throws IOException {
            nothingYet();
            return super.read();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            nothingYet();
            return super.read(b, off, len);
        }

        private void nothingYet() throws IOException {
            if (socket.peeking() && in.available() == 0) {
                throw new NothingPending();
            }
        }
    }

    /** What the 1 ms read would have thrown; without a stack trace, since it marks no error. */
    private static final class NothingPending extends SocketTimeoutException {

        private static final long serialVersionUID = 1L;

        NothingPending() {
            super("nothing pending (a 1 ms peek answered at once)");
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }
}
