package io.simrdma.dat.spi;

import io.simrdma.dat.Dat;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatRegistry;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.ProviderInfo;

/**
 * A DAT provider: what a provider implements so that the {@link DatRegistry} can find it and open
 * its IAs. The Java counterpart of a provider library with its {@code DAT_PROVIDER} description and
 * its {@code dat_provider_init} / {@code dat_provider_fini} entry points.
 *
 * <p>Discovery: list the implementation class in
 * {@code META-INF/services/io.simrdma.dat.spi.DatProvider}; {@link Dat#registry()} loads it with
 * {@link java.util.ServiceLoader} (a public no-argument constructor is needed). An application may
 * also hand provider instances to {@link DatRegistry#create}.
 *
 * <p>How the registry resolves an IA name (see {@link DatRegistry#openIa}):
 * <ol>
 * <li>an IA name already registered with {@link DatRegistry#addProvider} (the dynamic registry) is
 *     opened by the provider that registered it;</li>
 * <li>otherwise a dat.conf entry for the name (the static registry) names the provider by
 *     {@link #name()}; the registry calls {@link #init} with the entry's instance data (its
 *     {@code ia-params} field), and init registers the name;</li>
 * <li>otherwise the registry asks each known provider, in discovery order, whether it
 *     {@link #serves} the name, which lets a provider accept IA names of its own syntax (for example
 *     {@code "sim:fabric0/dev0"}); the first that does is initialised as in 2, with no instance
 *     data.</li>
 * </ol>
 * Then it calls {@link #openIa} with an {@link IaOpenRequest}.
 *
 * <p>Thread safety: the registry calls {@link #init} and {@link #fini} with its lock held, one at a
 * time; {@link #serves}, {@link #name()} and the version methods may be called from any thread at
 * any time and must not block; {@link #openIa} is called without the registry's lock, possibly from
 * several threads at once.
 */
public interface DatProvider {

    /**
     * The provider's name, unique among the providers of a registry; dat.conf's {@code provider}
     * field refers to it (where a C dat.conf names a library). Example: {@code "simrdma"}.
     */
    String name();

    /** The provider's own major version. */
    int versionMajor();

    /** The provider's own minor version. */
    int versionMinor();

    /** The DAT API major version the provider implements; {@link Dat#VERSION_MAJOR} by default. */
    default int daplVersionMajor() {
        return Dat.VERSION_MAJOR;
    }

    /** The DAT API minor version the provider implements; {@link Dat#VERSION_MINOR} by default. */
    default int daplVersionMinor() {
        return Dat.VERSION_MINOR;
    }

    /** Whether the provider is thread-safe; an IA name it serves is registered with this value. */
    boolean isThreadSafe();

    /**
     * Whether this provider serves {@code iaName}, an IA name that neither the dynamic registry nor
     * dat.conf knows. Must answer from the name alone, quickly and without side effects; a provider
     * that only serves names listed in dat.conf returns false.
     */
    boolean serves(String iaName);

    /**
     * {@code dat_provider_init}: the registry calls it before the first open of an IA name it
     * resolved to this provider (again after {@link #fini}, or after the provider removed the name).
     * It must register exactly {@code info.iaName()} with {@link DatRegistry#addProvider} and no
     * other name; if it fails, it must not leave the name registered. The default does just the
     * registration; override to initialise more, and call it (or register yourself).
     *
     * @param registry the registry calling
     * @param info the IA name, DAT version and thread safety of the entry being initialised
     * @param instanceData the {@code ia-params} field of the dat.conf entry, or {@code null} when the
     *        name was resolved by {@link #serves}
     * @throws DatException to refuse; the open that caused the call fails with it
     */
    default void init(DatRegistry registry, ProviderInfo info, String instanceData) {
        registry.addProvider(this, info);
    }

    /**
     * {@code dat_provider_fini}: the registry calls it when it unloads an IA name it initialised
     * ({@link DatRegistry#unload}, {@link DatRegistry#close}), only while no instance of that IA is
     * open, and never twice without an init in between. It should undo init and remove the name
     * with {@link DatRegistry#removeProvider}; if it does not, the registry removes it. The default
     * removes the name if still registered.
     */
    default void fini(DatRegistry registry, ProviderInfo info) {
        if (registry.isRegistered(this, info)) {
            registry.removeProvider(this, info);
        }
    }

    /**
     * Opens an instance of the IA {@code request.iaName()}: the provider side of {@code dat_ia_open}.
     * The provider creates, uses or omits the asynchronous EVD as {@link IaOpenRequest#asyncEvd()}
     * says, and must call {@link IaOpenRequest#notifyClosed()} once the instance is closed (abrupt or
     * successful graceful close), so that the registry knows the provider is no longer in use.
     *
     * @throws DatException as dat_ia_open: {@code DAT_INSUFFICIENT_RESOURCES},
     *         {@code DAT_INVALID_PARAMETER} (for example a name of its syntax that names nothing, or
     *         {@code DAT_INVALID_RO_COOKIE}), {@code DAT_INVALID_HANDLE} (the asynchronous EVD
     *         passed in), {@code DAT_PROVIDER_NOT_FOUND}; any other exception is reported to the
     *         consumer as {@code DAT_INTERNAL_ERROR}
     */
    InterfaceAdapter openIa(IaOpenRequest request);
}
