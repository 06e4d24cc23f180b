package io.simrdma.dat.spi;

import io.simrdma.dat.AsyncEvdRequest;
import io.simrdma.dat.DatException;
import io.simrdma.dat.ProviderInfo;
import java.util.Optional;

/**
 * What the registry hands {@link DatProvider#openIa}: the consumer's dat_ia_open arguments, the
 * registry entry that matched, and the callback to run when the IA instance is closed.
 *
 * <p>Thread safety: immutable; {@link #notifyClosed()} may be called from any thread.
 *
 * @param iaName the IA name, without the {@code RO_AWARE_} prefix
 * @param relaxedOrderingAware whether the consumer's IA name had the {@code RO_AWARE_} prefix
 *        (dat_ia_open: the consumer handles relaxed ordering)
 * @param asyncEvd what to do about the asynchronous EVD
 * @param requestedVersionMajor the DAT major version the consumer asked for
 * @param requestedVersionMinor the least DAT minor version the consumer asked for
 * @param threadSafeRequested whether the consumer asked for a thread-safe provider
 * @param registration the registry entry that matched ({@code provider_info})
 * @param instanceData the dat.conf {@code ia-params} of the entry, if the name came from dat.conf
 * @param closeListener run by {@link #notifyClosed()}; the registry's, idempotent
 */
public record IaOpenRequest(
        String iaName,
        boolean relaxedOrderingAware,
        AsyncEvdRequest asyncEvd,
        int requestedVersionMajor,
        int requestedVersionMinor,
        boolean threadSafeRequested,
        ProviderInfo registration,
        Optional<String> instanceData,
        Runnable closeListener) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null component
     */
    public IaOpenRequest {
        if (iaName == null
                || asyncEvd == null
                || registration == null
                || instanceData == null
                || closeListener == null) {
            throw DatException.invalidParameter("IaOpenRequest components must not be null");
        }
    }

    /**
     * Tells the registry that the IA instance opened for this request is closed. The provider calls
     * it from its dat_ia_close; calls after the first have no effect.
     */
    public void notifyClosed() {
        closeListener.run();
    }
}
