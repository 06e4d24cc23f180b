package io.simrdma.dat;

import java.net.SocketAddress;
import java.util.Arrays;
import java.util.Optional;

/**
 * The parameters of a Connection Request ({@code DAT_CR_PARAM}), as {@link ConnectionRequest#query()}
 * returns them. The request carries no remote EP attributes; consumers exchange those in private
 * data.
 *
 * <p>Private data: the record holds its own copy and {@link #privateData()} returns a new copy each
 * time; the caller owns what it gets. (In C the provider owns it until the CR is destroyed; a Java
 * copy outlives the CR.)
 *
 * <p>Thread safety: immutable.
 *
 * @param remoteIaAddress the requester's IA address
 * @param remotePortQual the requester's port qualifier
 * @param privateData the requester's private data ({@code private_data_size} is its length)
 * @param localEp the EP that can accept: provider-created (PSP with {@link PspFlag#PROVIDER}) or the
 *        RSP's EP; empty ({@code DAT_HANDLE_NULL}) when the consumer supplies one
 */
public record CrParams(
        SocketAddress remoteIaAddress, long remotePortQual, byte[] privateData, Optional<Endpoint> localEp) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null address or endpoint option
     */
    public CrParams {
        Checks.notNull(remoteIaAddress, "remoteIaAddress");
        privateData = Checks.privateData(privateData);
        Checks.notNull(localEp, "localEp");
    }

    /** A copy of the requester's private data. */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    /** {@code private_data_size}. */
    public int privateDataSize() {
        return privateData.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CrParams c
                && remoteIaAddress.equals(c.remoteIaAddress)
                && remotePortQual == c.remotePortQual
                && Arrays.equals(privateData, c.privateData)
                && localEp.equals(c.localEp);
    }

    @Override
    public int hashCode() {
        return ((remoteIaAddress.hashCode() * 31 + Long.hashCode(remotePortQual)) * 31 + Arrays.hashCode(privateData))
                        * 31
                + localEp.hashCode();
    }

    @Override
    public String toString() {
        return "CrParams[remoteIaAddress=" + remoteIaAddress + ", remotePortQual=" + remotePortQual
                + ", privateDataSize=" + privateData.length + ", localEp=" + localEp + "]";
    }
}
