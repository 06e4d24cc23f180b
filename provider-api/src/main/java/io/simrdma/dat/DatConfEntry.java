package io.simrdma.dat;

/**
 * One line of a dat.conf static registry (see {@link DatConf} for the format).
 *
 * <p>Thread safety: immutable.
 *
 * @param iaName the IA name a consumer passes to dat_ia_open
 * @param apiVersionMajor the DAT API major version ({@code u1.2} gives 1)
 * @param apiVersionMinor the DAT API minor version ({@code u1.2} gives 2)
 * @param threadSafe {@code threadsafe} (true) or {@code nonthreadsafe} (false)
 * @param defaultEntry {@code default} (true) or {@code nondefault} (false); recorded, not used by
 *        the registry
 * @param providerName the {@link io.simrdma.dat.spi.DatProvider#name()} of the provider
 * @param providerVersionId the identifier before the provider version numbers, or the empty string
 * @param providerVersionMajor the provider major version
 * @param providerVersionMinor the provider minor version
 * @param iaParams the instance data passed to the provider's init ({@code dat_provider_init})
 * @param platformParams platform parameters; recorded, not interpreted
 * @param lineNumber the 1-based line of the entry in its file
 */
public record DatConfEntry(
        String iaName,
        int apiVersionMajor,
        int apiVersionMinor,
        boolean threadSafe,
        boolean defaultEntry,
        String providerName,
        String providerVersionId,
        int providerVersionMajor,
        int providerVersionMinor,
        String iaParams,
        String platformParams,
        int lineNumber) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null component, an invalid IA name, an
     *         empty provider name or a negative version
     */
    public DatConfEntry {
        Checks.iaName(iaName);
        Checks.nonNegative(apiVersionMajor, "apiVersionMajor");
        Checks.nonNegative(apiVersionMinor, "apiVersionMinor");
        Checks.notNull(providerName, "providerName");
        if (providerName.isEmpty()) {
            throw DatException.invalidParameter("provider name is empty");
        }
        Checks.notNull(providerVersionId, "providerVersionId");
        Checks.nonNegative(providerVersionMajor, "providerVersionMajor");
        Checks.nonNegative(providerVersionMinor, "providerVersionMinor");
        Checks.notNull(iaParams, "iaParams");
        Checks.notNull(platformParams, "platformParams");
    }

    /** The registry entry this line stands for: IA name, DAT version and thread safety. */
    public ProviderInfo providerInfo() {
        return new ProviderInfo(iaName, apiVersionMajor, apiVersionMinor, threadSafe);
    }
}
