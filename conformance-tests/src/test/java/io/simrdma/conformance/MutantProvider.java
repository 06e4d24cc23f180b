package io.simrdma.conformance;

import io.simrdma.dat.DatConf;
import io.simrdma.dat.DatHandle;
import io.simrdma.dat.DatRegistry;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EpModify;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.spi.DatProvider;
import io.simrdma.dat.spi.IaOpenRequest;
import io.simrdma.provider.SimProvider;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A provider that delegates every DAT call to sim-provider and lets one {@link Mutation} break one rule:
 * a mutant the conformance suite must kill. Every handle the sim provider returns (directly, inside a
 * record such as an event or a query result, or inside an {@link Optional}) is wrapped in a proxy that
 * implements the same provider-api interfaces, so the mutation sees each call; handles the consumer passes
 * back are unwrapped before they reach sim-provider. A handle keeps one proxy (identity is preserved,
 * as the suite compares handles by identity).
 *
 * <p>Each run (the IA names before {@code /ia}: the suite's {@code {run}} number) gets a fresh mutation from the
 * supplier, so a stateful mutation (one that drops every third completion) does the same in every replay of a
 * seed: a shrink's replays start where the run they shrink started.
 *
 * <p>Thread safety: the handle map is synchronized; a mutation's own state must be (the suite runs one
 * sequence at a time, but providers call back on their threads).
 */
final class MutantProvider implements DatProvider {

    /** One broken rule: sees every call on a provider-api handle with real (unwrapped) objects. */
    interface Mutation {
        /**
         * Called instead of {@code m} on {@code target}; {@code proceed} makes the real call (with
         * {@code args}, which the mutation may have changed). Returns the real-typed result.
         */
        Object invoke(Object target, Method m, Object[] args, Call proceed) throws Throwable;
    }

    /** The real call. */
    interface Call {
        Object run() throws Throwable;
    }

    private final String name;
    private final java.util.function.Supplier<Mutation> mutations;
    /** The mutation of each run, by the IA name before {@code /ia}. */
    private final Map<String, Mutation> byRun = new java.util.HashMap<>();

    private final SimProvider sim = new SimProvider();
    private final Map<Object, Object> proxies = new IdentityHashMap<>();
    private final Map<Object, Object> reals = new IdentityHashMap<>();

    MutantProvider(String name, java.util.function.Supplier<Mutation> mutations) {
        this.name = name;
        this.mutations = mutations;
    }

    /** A provider whose mutation keeps no state (the same one serves every run). */
    MutantProvider(String name, Mutation mutation) {
        this(name, () -> mutation);
    }

    /** A registry holding only this provider (it serves the sim provider's IA names). */
    DatRegistry registry() {
        return DatRegistry.create(DatConf.empty(), List.of(this));
    }

    @Override
    public String name() {
        return "mutant-" + name;
    }

    @Override
    public int versionMajor() {
        return sim.versionMajor();
    }

    @Override
    public int versionMinor() {
        return sim.versionMinor();
    }

    @Override
    public boolean isThreadSafe() {
        return sim.isThreadSafe();
    }

    @Override
    public boolean serves(String iaName) {
        return sim.serves(iaName);
    }

    @Override
    public InterfaceAdapter openIa(IaOpenRequest request) {
        String name = request.iaName();
        int cut = name.indexOf("/ia");
        String run = cut < 0 ? name : name.substring(0, cut);
        Mutation m;
        synchronized (byRun) {
            m = byRun.computeIfAbsent(run, k -> mutations.get());
        }
        return (InterfaceAdapter) wrap(sim.openIa(request), m);
    }

    /** The proxy of a real object (handles, records holding handles, optionals and lists of them). */
    Object wrap(Object real, Mutation mutation) {
        if (real == null) {
            return null;
        }
        if (real instanceof Optional<?> o) {
            return o.map(e -> wrap(e, mutation));
        }
        if (real instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            for (Object e : l) {
                out.add(wrap(e, mutation));
            }
            return List.copyOf(out);
        }
        if (real.getClass().isRecord() && real.getClass().getPackageName().equals("io.simrdma.dat")) {
            return rebuild(real, mutation);
        }
        if (!(real instanceof DatHandle)) {
            // values and the consumer's own objects (a WaitProxyAgent, a software event's pointer) pass as they are
            return real;
        }
        synchronized (proxies) {
            Object p = proxies.get(real);
            if (p == null) {
                Set<Class<?>> ifaces = new LinkedHashSet<>();
                for (Class<?> c = real.getClass(); c != null; c = c.getSuperclass()) {
                    collect(c, ifaces);
                }
                p = Proxy.newProxyInstance(
                        MutantProvider.class.getClassLoader(),
                        ifaces.toArray(Class<?>[]::new),
                        new Handler(real, mutation));
                proxies.put(real, p);
                reals.put(p, real);
            }
            return p;
        }
    }

    /** The real object of a proxy (records and optionals rebuilt), as sim-provider must see it. */
    Object unwrap(Object o) {
        if (o == null) {
            return null;
        }
        synchronized (proxies) {
            Object r = reals.get(o);
            if (r != null) {
                return r;
            }
        }
        if (o instanceof Optional<?> opt) {
            return opt.map(this::unwrap);
        }
        if (o instanceof EpModify mod) {
            return unwrapModify(mod);
        }
        if (o instanceof List<?> l && !l.isEmpty() && l.get(0) instanceof DatHandle) {
            List<Object> out = new ArrayList<>(l.size());
            for (Object e : l) {
                out.add(unwrap(e));
            }
            return out;
        }
        if (o.getClass().isRecord() && o.getClass().getPackageName().equals("io.simrdma.dat")) {
            return rebuild(o, null);
        }
        return o;
    }

    /** Set while a record is rebuilt: its constructor's checks read handle types of handles that may be freed. */
    private static final ThreadLocal<Boolean> REBUILDING = ThreadLocal.withInitial(() -> Boolean.FALSE);

    /** dat_ep_modify's argument, its PZ and EVDs unwrapped (a class with a private constructor). */
    private EpModify unwrapModify(EpModify mod) {
        try {
            var ctor = EpModify.class.getDeclaredConstructor(
                    Set.class,
                    ProtectionZone.class,
                    EventDispatcher.class,
                    EventDispatcher.class,
                    EventDispatcher.class,
                    EpAttributes.class);
            ctor.setAccessible(true);
            return ctor.newInstance(
                    mod.fields(),
                    unwrap(mod.pz()),
                    unwrap(mod.recvEvd()),
                    unwrap(mod.requestEvd()),
                    unwrap(mod.connectEvd()),
                    mod.attributeValues());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot unwrap " + mod, e);
        }
    }

    /** {@code rec} with its handles wrapped (for {@code mutation}'s run) or, with a null mutation, unwrapped. */
    private Object rebuild(Object rec, Mutation mutation) {
        boolean wrapping = mutation != null;
        RecordComponent[] rc = rec.getClass().getRecordComponents();
        Object[] values = new Object[rc.length];
        Class<?>[] types = new Class<?>[rc.length];
        boolean changed = false;
        try {
            for (int i = 0; i < rc.length; i++) {
                Object v = rc[i].getAccessor().invoke(rec);
                Object w = wrapping ? wrap(v, mutation) : unwrap(v);
                changed |= w != v;
                values[i] = w;
                types[i] = rc[i].getType();
            }
            if (!changed) {
                return rec;
            }
            var ctor = rec.getClass().getDeclaredConstructor(types);
            ctor.setAccessible(true);
            REBUILDING.set(Boolean.TRUE);
            try {
                return ctor.newInstance(values);
            } finally {
                REBUILDING.set(Boolean.FALSE);
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot rebuild " + rec.getClass().getSimpleName(), e);
        }
    }

    private static void collect(Class<?> c, Set<Class<?>> out) {
        for (Class<?> i : c.getInterfaces()) {
            if (i.getPackageName().startsWith("io.simrdma.dat") || i == AutoCloseable.class) {
                out.add(i);
            }
            collect(i, out);
        }
    }

    private final class Handler implements InvocationHandler {
        private final Object real;
        /** The mutation of the run the handle belongs to. */
        private final Mutation mutation;
        /** The handle's type while it was alive (a freed handle's dat_get_handle_type fails). */
        private final Object handleType;

        Handler(Object real, Mutation mutation) {
            this.real = real;
            this.mutation = mutation;
            Object t = null;
            if (real instanceof DatHandle h) {
                try {
                    t = h.handleType();
                } catch (RuntimeException e) {
                    t = null;
                }
            }
            this.handleType = t;
        }

        @Override
        public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
            if (m.getDeclaringClass() == Object.class) {
                switch (m.getName()) {
                    case "equals":
                        return proxy == args[0];
                    case "hashCode":
                        return System.identityHashCode(proxy);
                    default:
                        return real.toString();
                }
            }
            if (REBUILDING.get() && m.getName().equals("handleType") && handleType != null) {
                return handleType;
            }
            Object[] a = args == null ? new Object[0] : args.clone();
            for (int i = 0; i < a.length; i++) {
                a[i] = unwrap(a[i]);
            }
            Object result = mutation.invoke(real, m, a, () -> {
                try {
                    return m.invoke(real, a);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            });
            return wrap(result, mutation);
        }
    }
}
