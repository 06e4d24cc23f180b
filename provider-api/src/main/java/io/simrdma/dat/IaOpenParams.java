package io.simrdma.dat;

/**
 * What a consumer gives {@code dat_ia_openv} (the function behind the dat_ia_open macro): the IA
 * name, what to do about the asynchronous EVD, and the DAT version and thread safety it was written
 * for. {@link #of(String, AsyncEvdRequest)} asks for DAT {@value Dat#VERSION_MAJOR}.{@value Dat#VERSION_MINOR}
 * and a thread-safe provider (the official DAT headers' default).
 *
 * <p>The registry matches a provider entry whose IA name, major version and thread safety equal
 * these exactly and whose minor version is at least {@link #versionMinor()}
 * (dat_registry_list_providers).
 *
 * <p>Thread safety: immutable.
 *
 * @param iaName the IA name, possibly prefixed with {@link Dat#RO_AWARE_PREFIX}
 * @param asyncEvd what to do about the asynchronous EVD
 * @param versionMajor the DAT major version asked for
 * @param versionMinor the least DAT minor version asked for
 * @param threadSafe whether a thread-safe provider is asked for
 */
public record IaOpenParams(
        String iaName, AsyncEvdRequest asyncEvd, int versionMajor, int versionMinor, boolean threadSafe) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null, blank or too long name (more
     *         than 255 characters), a null EVD request or a negative version
     */
    public IaOpenParams {
        Checks.iaName(iaName);
        Checks.notNull(asyncEvd, "asyncEvd");
        Checks.nonNegative(versionMajor, "versionMajor");
        Checks.nonNegative(versionMinor, "versionMinor");
    }

    /** DAT 1.2, thread-safe. */
    public static IaOpenParams of(String iaName, AsyncEvdRequest asyncEvd) {
        return new IaOpenParams(iaName, asyncEvd, Dat.VERSION_MAJOR, Dat.VERSION_MINOR, true);
    }
}
