package io.simrdma.dat;

import io.simrdma.dat.spi.DatProvider;
import io.simrdma.dat.spi.IaOpenRequest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The DAT registry: the static registry (a {@link DatConf}), the known providers, and the dynamic
 * registry of IA names providers have registered. It opens IAs (dat_ia_open) and implements
 * dat_registry_list_providers, dat_registry_add_provider and dat_registry_remove_provider, and calls
 * the providers' dat_provider_init and dat_provider_fini ({@link DatProvider#init},
 * {@link DatProvider#fini}).
 *
 * <p>Life cycle of an IA name (dat_provider_init, dat_provider_fini):
 * <ol>
 * <li>The first {@link #openIa} of a name that is not in the dynamic registry resolves it to a
 *     provider (a dat.conf entry, else the first provider that {@link DatProvider#serves serves}
 *     it) and calls the provider's init, which registers the name ({@link #addProvider}).</li>
 * <li>Every open counts an instance until the provider reports it closed
 *     ({@link IaOpenRequest#notifyClosed()}); while instances are open the provider is in use and
 *     cannot be removed ({@code DAT_PROVIDER_IN_USE}).</li>
 * <li>{@link #unload(String)} (or {@link #close()} for all names) calls fini for a name the registry
 *     initialised, once no instance is open; fini removes the name, or the registry does. The next
 *     open initialises it again.</li>
 * </ol>
 * A provider an application loads itself may instead call {@link #addProvider} directly; the
 * registry then neither inits nor finis that name.
 *
 * <p>Thread safety: thread-safe. Registry changes, provider init and fini run under one lock; a
 * provider's openIa runs outside it.
 */
public final class DatRegistry implements AutoCloseable {

    private final Object lock = new Object();
    private final DatConf staticRegistry;
    private final Map<String, DatProvider> providers;
    private final Map<String, Registration> dynamic = new LinkedHashMap<>();
    private final Map<String, Initialized> initialized = new LinkedHashMap<>();
    private String initInProgress;

    private static final class Registration {
        final DatProvider provider;
        final ProviderInfo info;
        int openCount;

        Registration(DatProvider provider, ProviderInfo info) {
            this.provider = provider;
            this.info = info;
        }
    }

    private record Initialized(DatProvider provider, ProviderInfo info, Optional<String> instanceData) {}

    private record Resolution(DatProvider provider, ProviderInfo info, Optional<String> instanceData) {}

    private DatRegistry(DatConf staticRegistry, Map<String, DatProvider> providers) {
        this.staticRegistry = staticRegistry;
        this.providers = providers;
    }

    /**
     * A registry over {@code staticRegistry} and {@code providers} (in resolution order for
     * {@link DatProvider#serves}).
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null argument or a provider without a
     *         name, {@code DAT_PROVIDER_ALREADY_REGISTERED} if two providers share a name
     */
    public static DatRegistry create(DatConf staticRegistry, Iterable<? extends DatProvider> providers) {
        Checks.notNull(staticRegistry, "staticRegistry");
        Checks.notNull(providers, "providers");
        Map<String, DatProvider> byName = new LinkedHashMap<>();
        Iterator<? extends DatProvider> it = providers.iterator();
        while (true) {
            DatProvider p;
            try {
                if (!it.hasNext()) {
                    break;
                }
                p = it.next();
            } catch (ServiceConfigurationError e) {
                throw new DatException(
                        DatReturnType.INTERNAL_ERROR,
                        DatReturnSubtype.NO_SUBTYPE,
                        "a DAT provider could not be loaded: " + e.getMessage(),
                        e);
            }
            Checks.notNull(p, "provider");
            String name = p.name();
            if (name == null || name.isBlank()) {
                throw DatException.invalidParameter("provider " + p.getClass().getName() + " has no name");
            }
            DatProvider previous = byName.putIfAbsent(name, p);
            if (previous != null) {
                throw new DatException(
                        DatReturnType.PROVIDER_ALREADY_REGISTERED,
                        DatReturnSubtype.NO_SUBTYPE,
                        "providers " + previous.getClass().getName() + " and "
                                + p.getClass().getName() + " are both named '" + name + "'");
            }
        }
        return new DatRegistry(staticRegistry, Collections.unmodifiableMap(byName));
    }

    /**
     * A registry over {@link DatConf#locate()} and the providers {@link ServiceLoader} finds for
     * {@link DatProvider} with the context class loader; what {@link Dat#registry()} uses.
     *
     * @throws DatException as {@link DatConf#locate()} and {@link #create}
     */
    public static DatRegistry load() {
        return create(DatConf.locate(), ServiceLoader.load(DatProvider.class));
    }

    /** The static registry this registry was created with. */
    public DatConf staticRegistry() {
        return staticRegistry;
    }

    /** The known providers, in resolution order. */
    public List<DatProvider> providers() {
        return List.copyOf(providers.values());
    }

    /**
     * Every registry entry: the dat.conf entries in file order, then the dynamically registered IA
     * names that are not among them, in registration order.
     */
    public List<ProviderInfo> listProviders() {
        synchronized (lock) {
            List<ProviderInfo> all = new ArrayList<>();
            for (DatConfEntry e : staticRegistry.entries()) {
                all.add(e.providerInfo());
            }
            for (Registration r : dynamic.values()) {
                if (!all.contains(r.info)) {
                    all.add(r.info);
                }
            }
            return all;
        }
    }

    /**
     * At most {@code maxToReturn} registry entries, and how many there are. Corresponds to
     * {@code dat_registry_list_providers()}; where C fails because its list is too small, this
     * returns the entries that fit with {@link ProviderList#isComplete()} false and
     * {@link ProviderList#totalCount()} the number C returns in {@code number_entries}. Has no
     * effect on the registry.
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} if {@code maxToReturn} is negative
     */
    public ProviderList listProviders(int maxToReturn) {
        Checks.nonNegative(maxToReturn, "max_to_return");
        List<ProviderInfo> all = listProviders();
        return new ProviderList(all.subList(0, Math.min(maxToReturn, all.size())), all.size());
    }

    /**
     * Registers the IA name {@code info.iaName()} as served by {@code provider}. Corresponds to
     * {@code dat_registry_add_provider()}. During {@link DatProvider#init} for a name, only that
     * name may be registered. The registry sets no limit on the number of registrations, so the
     * man page's {@code DAT_INSUFFICIENT_RESOURCES} does not occur.
     *
     * @throws DatException {@code DAT_PROVIDER_ALREADY_REGISTERED} if the IA name is registered, or
     *         another provider with the same {@link DatProvider#name()} is known;
     *         {@code DAT_INVALID_PARAMETER} for a null argument or a name other than the one being
     *         initialised
     */
    public void addProvider(DatProvider provider, ProviderInfo info) {
        Checks.notNull(provider, "provider");
        Checks.notNull(info, "provider_info");
        synchronized (lock) {
            if (initInProgress != null && !initInProgress.equals(info.iaName())) {
                throw DatException.invalidParameter("dat_provider_init for '" + initInProgress
                        + "' must not register another IA name ('" + info.iaName() + "')");
            }
            if (dynamic.containsKey(info.iaName())) {
                throw new DatException(
                        DatReturnType.PROVIDER_ALREADY_REGISTERED,
                        DatReturnSubtype.NO_SUBTYPE,
                        "IA name '" + info.iaName() + "' is already registered");
            }
            DatProvider known = providers.get(provider.name());
            boolean clash = known != null && known != provider;
            for (Registration r : dynamic.values()) {
                clash |= r.provider != provider && r.provider.name().equals(provider.name());
            }
            if (clash) {
                throw new DatException(
                        DatReturnType.PROVIDER_ALREADY_REGISTERED,
                        DatReturnSubtype.NO_SUBTYPE,
                        "another provider is named '" + provider.name() + "'");
            }
            dynamic.put(info.iaName(), new Registration(provider, info));
        }
    }

    /**
     * Removes the registration of {@code info.iaName()} by {@code provider}; open instances are left
     * to the provider, new opens are prevented. Corresponds to {@code dat_registry_remove_provider()}.
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} if {@code provider} has not registered
     *         exactly {@code info} (the man page: "The Provider was not found"), or for a null
     *         argument; {@code DAT_PROVIDER_IN_USE} if an instance of the IA is open
     */
    public void removeProvider(DatProvider provider, ProviderInfo info) {
        Checks.notNull(provider, "provider");
        Checks.notNull(info, "provider_info");
        synchronized (lock) {
            Registration r = dynamic.get(info.iaName());
            if (r == null || r.provider != provider || !r.info.equals(info)) {
                throw DatException.invalidParameter("provider '" + provider.name() + "' has not registered " + info);
            }
            if (r.openCount > 0) {
                throw inUse(r, info.iaName());
            }
            dynamic.remove(info.iaName());
        }
    }

    /** Whether {@code provider} has registered exactly {@code info}. */
    public boolean isRegistered(DatProvider provider, ProviderInfo info) {
        synchronized (lock) {
            Registration r = info == null ? null : dynamic.get(info.iaName());
            return r != null && r.provider == provider && r.info.equals(info);
        }
    }

    /** How many instances of {@code iaName} are open (or being opened) through this registry. */
    public int openInstances(String iaName) {
        synchronized (lock) {
            Registration r = dynamic.get(iaName);
            return r == null ? 0 : r.openCount;
        }
    }

    /**
     * {@link #openIa(IaOpenParams)} for DAT 1.2, thread-safe, with a provider-created asynchronous
     * EVD of at least {@code asyncEvdMinQlen} events.
     */
    public InterfaceAdapter openIa(String iaName, int asyncEvdMinQlen) {
        return openIa(IaOpenParams.of(iaName, AsyncEvdRequest.create(asyncEvdMinQlen)));
    }

    /**
     * Opens an instance of an IA. Corresponds to {@code dat_ia_open()} ({@code dat_ia_openv}). A
     * {@link Dat#RO_AWARE_PREFIX} on the name is removed and reported to the provider. The name is
     * resolved as {@link DatProvider} describes; an entry matches when its major version and thread
     * safety equal the request's and its minor version is at least the request's (an exact minor
     * version is preferred). The provider is initialised if needed, then opens the IA.
     *
     * @throws DatException {@code DAT_PROVIDER_NOT_FOUND} with subtype
     *         {@code DAT_NAME_NOT_REGISTERED} (no entry and no provider serves the name, the dat.conf
     *         provider is not on the class path, or init did not register the name),
     *         {@code DAT_MAJOR_NOT_FOUND}, {@code DAT_THREAD_SAFETY_NOT_FOUND} or
     *         {@code DAT_MINOR_NOT_FOUND} (no entry with a matching version or thread safety);
     *         {@code DAT_INVALID_PARAMETER}; {@code DAT_INTERNAL_ERROR} (a provider failed with
     *         another exception); and what the provider throws ({@code DAT_INSUFFICIENT_RESOURCES},
     *         {@code DAT_INVALID_HANDLE} for a bad asynchronous EVD, ...)
     */
    public InterfaceAdapter openIa(IaOpenParams params) {
        Checks.notNull(params, "params");
        String name = params.iaName();
        boolean roAware = name.startsWith(Dat.RO_AWARE_PREFIX);
        if (roAware) {
            name = Checks.iaName(name.substring(Dat.RO_AWARE_PREFIX.length()));
        }
        Registration reg;
        Optional<String> instanceData;
        synchronized (lock) {
            reg = dynamic.get(name);
            if (reg == null) {
                Resolution r = resolve(name, params);
                initialize(name, r);
                reg = dynamic.get(name);
                if (reg == null) {
                    throw new DatException(
                            DatReturnType.PROVIDER_NOT_FOUND,
                            DatReturnSubtype.NAME_NOT_REGISTERED,
                            "provider '" + r.provider().name() + "' did not register IA name '" + name
                                    + "' in dat_provider_init");
                }
            }
            checkVersion(reg.info, params);
            Initialized init = initialized.get(name);
            instanceData = init != null && init.provider() == reg.provider ? init.instanceData() : Optional.empty();
            reg.openCount++;
        }
        CloseListener listener = new CloseListener(reg);
        IaOpenRequest request = new IaOpenRequest(
                name,
                roAware,
                params.asyncEvd(),
                params.versionMajor(),
                params.versionMinor(),
                params.threadSafe(),
                reg.info,
                instanceData,
                listener);
        InterfaceAdapter ia;
        try {
            ia = reg.provider.openIa(request);
        } catch (DatException e) {
            listener.run();
            throw e;
        } catch (RuntimeException e) {
            listener.run();
            throw new DatException(
                    DatReturnType.INTERNAL_ERROR,
                    DatReturnSubtype.NO_SUBTYPE,
                    "provider '" + reg.provider.name() + "' failed to open IA '" + name + "'",
                    e);
        }
        if (ia == null) {
            listener.run();
            throw new DatException(
                    DatReturnType.INTERNAL_ERROR,
                    DatReturnSubtype.NO_SUBTYPE,
                    "provider '" + reg.provider.name() + "' returned no IA for '" + name + "'");
        }
        return ia;
    }

    /**
     * Calls {@link DatProvider#fini} (dat_provider_fini) for {@code iaName}, which this registry
     * initialised, and makes sure the name is no longer registered. The next open initialises it
     * again.
     *
     * @throws DatException {@code DAT_PROVIDER_IN_USE} if an instance of the IA is open;
     *         {@code DAT_INVALID_PARAMETER} if the registry did not initialise {@code iaName} (or
     *         already unloaded it); what fini throws ({@code DAT_INTERNAL_ERROR} for an exception
     *         other than {@link DatException}), after the name was removed
     */
    public void unload(String iaName) {
        Checks.notNull(iaName, "iaName");
        synchronized (lock) {
            Initialized init = initialized.get(iaName);
            if (init == null) {
                throw DatException.invalidParameter("IA name '" + iaName + "' was not initialised by this registry");
            }
            Registration r = dynamic.get(iaName);
            if (r != null && r.provider == init.provider() && r.openCount > 0) {
                throw inUse(r, iaName);
            }
            initialized.remove(iaName);
            try {
                init.provider().fini(this, init.info());
            } catch (DatException e) {
                throw e;
            } catch (RuntimeException e) {
                throw new DatException(
                        DatReturnType.INTERNAL_ERROR,
                        DatReturnSubtype.NO_SUBTYPE,
                        "dat_provider_fini of '" + init.provider().name() + "' for '" + iaName + "' failed",
                        e);
            } finally {
                // dat_provider_fini: "If it does not, the Registry might remove the entry itself."
                removeLeftover(iaName, init.provider());
            }
        }
    }

    /**
     * Unloads every IA name this registry initialised ({@link #unload(String)}): what happens before
     * the Registry "unloads the Provider library". Nothing is unloaded if any of them has an open
     * instance. The registry stays usable.
     *
     * @throws DatException {@code DAT_PROVIDER_IN_USE} if an instance of an initialised IA is open;
     *         the first failure of a fini, with the others suppressed
     */
    @Override
    public void close() {
        synchronized (lock) {
            for (String name : initialized.keySet()) {
                Registration r = dynamic.get(name);
                if (r != null && r.openCount > 0) {
                    throw inUse(r, name);
                }
            }
            DatException first = null;
            for (String name : new ArrayList<>(initialized.keySet())) {
                try {
                    unload(name);
                } catch (DatException e) {
                    if (first == null) {
                        first = e;
                    } else {
                        first.addSuppressed(e);
                    }
                }
            }
            if (first != null) {
                throw first;
            }
        }
    }

    private Resolution resolve(String name, IaOpenParams params) {
        List<DatConfEntry> entries = staticRegistry.entriesFor(name);
        if (!entries.isEmpty()) {
            DatConfEntry entry = select(entries, params);
            DatProvider provider = providers.get(entry.providerName());
            if (provider == null) {
                throw new DatException(
                        DatReturnType.PROVIDER_NOT_FOUND,
                        DatReturnSubtype.NAME_NOT_REGISTERED,
                        staticRegistry.source() + ":" + entry.lineNumber() + " maps IA name '" + name
                                + "' to provider '" + entry.providerName() + "', which is not on the class path");
            }
            return new Resolution(provider, entry.providerInfo(), Optional.of(entry.iaParams()));
        }
        for (DatProvider provider : providers.values()) {
            boolean serves;
            try {
                serves = provider.serves(name);
            } catch (RuntimeException e) {
                throw new DatException(
                        DatReturnType.INTERNAL_ERROR,
                        DatReturnSubtype.NO_SUBTYPE,
                        "provider '" + provider.name() + "' failed to answer serves('" + name + "')",
                        e);
            }
            if (serves) {
                ProviderInfo info = new ProviderInfo(
                        name, provider.daplVersionMajor(), provider.daplVersionMinor(), provider.isThreadSafe());
                checkVersion(info, params);
                return new Resolution(provider, info, Optional.empty());
            }
        }
        throw new DatException(
                DatReturnType.PROVIDER_NOT_FOUND,
                DatReturnSubtype.NAME_NOT_REGISTERED,
                "no provider serves IA name '" + name + "'");
    }

    /** dat_registry_list_providers: exact major and thread safety, minor at least the request's. */
    private static DatConfEntry select(List<DatConfEntry> entries, IaOpenParams params) {
        boolean majorFound = false;
        boolean threadSafetyFound = false;
        DatConfEntry best = null;
        for (DatConfEntry e : entries) {
            if (e.apiVersionMajor() != params.versionMajor()) {
                continue;
            }
            majorFound = true;
            if (e.threadSafe() != params.threadSafe()) {
                continue;
            }
            threadSafetyFound = true;
            if (e.apiVersionMinor() < params.versionMinor()) {
                continue;
            }
            if (best == null || e.apiVersionMinor() < best.apiVersionMinor()) {
                best = e; // the exact minor if there is one, else the smallest larger one
            }
        }
        if (best != null) {
            return best;
        }
        String name = entries.get(0).iaName();
        if (!majorFound) {
            throw notFound(DatReturnSubtype.MAJOR_NOT_FOUND, name, params);
        }
        if (!threadSafetyFound) {
            throw notFound(DatReturnSubtype.THREAD_SAFETY_NOT_FOUND, name, params);
        }
        throw notFound(DatReturnSubtype.MINOR_NOT_FOUND, name, params);
    }

    private static void checkVersion(ProviderInfo info, IaOpenParams params) {
        if (info.daplVersionMajor() != params.versionMajor()) {
            throw notFound(DatReturnSubtype.MAJOR_NOT_FOUND, info.iaName(), params);
        }
        if (info.threadSafe() != params.threadSafe()) {
            throw notFound(DatReturnSubtype.THREAD_SAFETY_NOT_FOUND, info.iaName(), params);
        }
        if (info.daplVersionMinor() < params.versionMinor()) {
            throw notFound(DatReturnSubtype.MINOR_NOT_FOUND, info.iaName(), params);
        }
    }

    /** {@code DAT_PROVIDER_IN_USE}: instances of {@code iaName}, registered as {@code r}, are open. */
    private static DatException inUse(Registration r, String iaName) {
        return new DatException(
                DatReturnType.PROVIDER_IN_USE,
                DatReturnSubtype.NO_SUBTYPE,
                r.openCount + " instance(s) of IA '" + iaName + "' are open");
    }

    private static DatException notFound(DatReturnSubtype subtype, String name, IaOpenParams params) {
        return new DatException(
                DatReturnType.PROVIDER_NOT_FOUND,
                subtype,
                "no entry for IA name '" + name
                        + "' with DAT " + params.versionMajor() + "." + params.versionMinor() + "+ and "
                        + (params.threadSafe() ? "threadsafe" : "nonthreadsafe"));
    }

    private void initialize(String name, Resolution r) {
        initInProgress = name;
        try {
            r.provider().init(this, r.info(), r.instanceData().orElse(null));
        } catch (DatException e) {
            removeLeftover(name, r.provider());
            throw e;
        } catch (RuntimeException e) {
            removeLeftover(name, r.provider());
            throw new DatException(
                    DatReturnType.INTERNAL_ERROR,
                    DatReturnSubtype.NO_SUBTYPE,
                    "dat_provider_init of '" + r.provider().name() + "' for '" + name + "' failed",
                    e);
        } finally {
            initInProgress = null;
        }
        initialized.put(name, new Initialized(r.provider(), r.info(), r.instanceData()));
    }

    /**
     * Removes {@code provider}'s registration of {@code name} if it is left. dat_provider_init: "If
     * this method fails, it should ensure that it does not leave its entry"; dat_provider_fini
     * likewise.
     */
    private void removeLeftover(String name, DatProvider provider) {
        Registration left = dynamic.get(name);
        if (left != null && left.provider == provider) {
            dynamic.remove(name);
        }
    }

    /** Counts an open instance down once, however often it runs. */
    private final class CloseListener implements Runnable {
        private final Registration registration;
        private final AtomicBoolean closed = new AtomicBoolean();

        CloseListener(Registration registration) {
            this.registration = registration;
        }

        @Override
        public void run() {
            if (closed.compareAndSet(false, true)) {
                synchronized (lock) {
                    registration.openCount--;
                }
            }
        }
    }
}
