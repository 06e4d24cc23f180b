package io.simrdma.dat.fake;

import io.simrdma.dat.DatRegistry;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.ProviderInfo;
import io.simrdma.dat.spi.DatProvider;
import io.simrdma.dat.spi.IaOpenRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A provider for registry tests: serves IA names {@code "<name>:..."}, records every init, fini and
 * open in {@link #calls}, and opens {@link FakeInterfaceAdapter}s. Listed in
 * META-INF/services so that ServiceLoader finds it (with the no-argument constructor, as "fake").
 */
public final class FakeProvider implements DatProvider {

    /** What init does instead of the default registration, if set. */
    public interface InitBehaviour {
        void init(FakeProvider self, DatRegistry registry, ProviderInfo info, String instanceData);
    }

    public final List<String> calls = new ArrayList<>();
    public final List<IaOpenRequest> requests = new ArrayList<>();
    private final String name;
    private final boolean threadSafe;
    private final int daplMajor;
    private final int daplMinor;
    public InitBehaviour initBehaviour;
    public boolean finiRemoves = true;
    public Function<IaOpenRequest, InterfaceAdapter> openBehaviour;

    public FakeProvider() {
        this("fake", true, 1, 2);
    }

    public FakeProvider(String name) {
        this(name, true, 1, 2);
    }

    public FakeProvider(String name, boolean threadSafe, int daplMajor, int daplMinor) {
        this.name = name;
        this.threadSafe = threadSafe;
        this.daplMajor = daplMajor;
        this.daplMinor = daplMinor;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int versionMajor() {
        return 0;
    }

    @Override
    public int versionMinor() {
        return 1;
    }

    @Override
    public int daplVersionMajor() {
        return daplMajor;
    }

    @Override
    public int daplVersionMinor() {
        return daplMinor;
    }

    @Override
    public boolean isThreadSafe() {
        return threadSafe;
    }

    @Override
    public boolean serves(String iaName) {
        return iaName.startsWith(name + ":");
    }

    @Override
    public void init(DatRegistry registry, ProviderInfo info, String instanceData) {
        calls.add("init " + info.iaName() + " " + instanceData);
        if (initBehaviour != null) {
            initBehaviour.init(this, registry, info, instanceData);
        } else {
            DatProvider.super.init(registry, info, instanceData);
        }
    }

    @Override
    public void fini(DatRegistry registry, ProviderInfo info) {
        calls.add("fini " + info.iaName());
        if (finiRemoves) {
            DatProvider.super.fini(registry, info);
        }
    }

    @Override
    public InterfaceAdapter openIa(IaOpenRequest request) {
        calls.add("open " + request.iaName());
        requests.add(request);
        if (openBehaviour != null) {
            return openBehaviour.apply(request);
        }
        return new FakeInterfaceAdapter(request, this);
    }
}
