package io.simrdma.dat;

/**
 * One entry of the DAT registry ({@code DAT_PROVIDER_INFO}): an IA name with the DAT API version and
 * thread safety of the provider behind it. Returned by {@link DatRegistry#listProviders(int)};
 * given to {@link DatRegistry#addProvider}, {@link DatRegistry#removeProvider} and the provider's
 * init and fini.
 *
 * <p>Thread safety: immutable.
 *
 * @param iaName the IA name; at most {@link Dat#NAME_MAX_LENGTH} - 1 characters
 * @param daplVersionMajor the DAT API major version
 * @param daplVersionMinor the DAT API minor version
 * @param threadSafe whether the provider is thread-safe for this IA
 */
public record ProviderInfo(String iaName, int daplVersionMajor, int daplVersionMinor, boolean threadSafe) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null, blank or too long name, or a
     *         negative version
     */
    public ProviderInfo {
        Checks.iaName(iaName);
        Checks.nonNegative(daplVersionMajor, "daplVersionMajor");
        Checks.nonNegative(daplVersionMinor, "daplVersionMinor");
    }
}
