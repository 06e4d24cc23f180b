package io.simrdma.provider;

import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatHandle;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.EvdStreamMerging;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.IovOwnership;
import io.simrdma.dat.MemoryType;
import io.simrdma.dat.NamedAttribute;
import io.simrdma.dat.ProviderAttributes;
import io.simrdma.dat.PspEpCreator;
import io.simrdma.dat.PzSupport;
import io.simrdma.dat.Qos;
import io.simrdma.dat.spi.DatProvider;
import io.simrdma.dat.spi.IaOpenRequest;
import io.simrdma.fabric.Device;
import io.simrdma.fabric.Fabric;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The sim provider: DAT 1.2 on the simulated fabric. Found through {@link java.util.ServiceLoader}
 * (META-INF/services/io.simrdma.dat.spi.DatProvider); serves IA names of the form
 * {@code sim:<fabric>/<device>} (see {@link IaName}).
 *
 * <p>An application that wants to drive the fabric itself (a deterministic fabric with its own
 * seed, fault rules on its links) registers it first:
 * <pre>{@code
 * Fabric fabric = Fabric.deterministic(42);
 * SimProvider.registerFabric("f", fabric);
 * InterfaceAdapter ia = Dat.openIa("sim:f/a", ...);
 * }</pre>
 *
 * <p>Thread safety: thread-safe.
 */
public final class SimProvider implements DatProvider {

    /** Name under which the provider registers. */
    public static final String NAME = "simrdma";
    /** Private data every connection operation carries at most: the IB CM REQ field less the provider's header ({@link PrivateData}). */
    public static final int MAX_PRIVATE_DATA = PrivateData.MAX;
    /** IAs open at once across the provider (a simrdma extension of DAT_PROVIDER_ATTR; system property simrdma.maxIaInstances). */
    static final int MAX_IA_INSTANCES = Integer.getInteger("simrdma.maxIaInstances", 64);

    private static final AtomicInteger OPEN_IAS = new AtomicInteger();

    /**
     * Makes {@code fabric} available to IA names {@code sim:<name>/<device>}. The fabric stays the
     * application's: closing IAs does not close it.
     */
    public static void registerFabric(String name, Fabric fabric) {
        SimFabrics.register(name, fabric);
    }

    /**
     * The fabric under an IA this provider opened (an in-process fabric, or a TCP node's), so that
     * a tool can trace or capture it ({@code PacketCapture}, {@code RunRecording}).
     *
     * @throws DatException DAT_INVALID_HANDLE (DAT_INVALID_HANDLE_IA) if {@code ia} is not an IA of
     *                      this provider
     */
    public static Fabric fabricOf(InterfaceAdapter ia) {
        if (!(ia instanceof SimIa)) {
            throw new DatException(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_IA,
                    "not an IA of the sim provider: " + ia);
        }
        return ((SimIa) ia).fabric;
    }

    /** Forgets a fabric registered with {@link #registerFabric}. */
    public static void unregisterFabric(String name) {
        SimFabrics.unregister(name);
    }

    /**
     * Whether each object an IA creates records where it was created (a stack trace taken on the
     * creating thread), for {@link #creationSite}. Off by default: it costs a stack trace per
     * created object. Test tools (simrdma-junit's leak check) turn it on.
     */
    public static void recordCreationSites(boolean on) {
        RECORD_SITES = on;
    }

    static volatile boolean RECORD_SITES;

    /**
     * The objects of {@code ia} its consumer has not freed yet, oldest first: the objects for which
     * dat_ia_close(3DAT) with DAT_CLOSE_GRACEFUL_FLAG would refuse to close the IA. Empty once the IA
     * is closed. For test tools that fail a test which leaked DAT handles. Any thread.
     *
     * @throws DatException DAT_INVALID_HANDLE if {@code ia} is not an IA of this provider
     */
    public static List<DatHandle> openHandles(InterfaceAdapter ia) {
        if (!(ia instanceof SimIa sim)) {
            throw new DatException(
                    DatReturnType.INVALID_HANDLE,
                    DatReturnSubtype.INVALID_HANDLE_IA,
                    "not an IA of the sim provider: " + ia);
        }
        return sim.openHandles();
    }

    /**
     * Where {@code handle} was created, as a throwable whose stack trace is the creating thread's at
     * that moment, or null if sites were not being recorded then ({@link #recordCreationSites}).
     */
    public static Throwable creationSite(DatHandle handle) {
        return handle instanceof SimHandle h ? h.createdAt : null;
    }

    /**
     * The events queued on {@code evd} that no dat_evd_dequeue(3DAT) or dat_evd_wait(3DAT) has taken
     * yet; 0 for an EVD that is not the sim provider's or was freed. For test tools. Any thread.
     */
    public static int queuedEvents(EventDispatcher evd) {
        return evd instanceof SimEvd e && !e.freed ? e.size() : 0;
    }

    @Override
    public String name() {
        return NAME;
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
    public boolean isThreadSafe() {
        return true;
    }

    @Override
    public boolean serves(String iaName) {
        return IaName.isSim(iaName);
    }

    @Override
    public InterfaceAdapter openIa(IaOpenRequest request) {
        // A dat.conf entry maps its IA name to a sim name in its ia-params field (DatConf); a sim name
        // resolved by serves() comes without instance data and names itself.
        IaName name =
                IaName.parse(request.instanceData().filter(d -> !d.isBlank()).orElse(request.iaName()));
        if (OPEN_IAS.incrementAndGet() > MAX_IA_INSTANCES) {
            OPEN_IAS.decrementAndGet();
            throw new DatException(
                    DatReturnType.INSUFFICIENT_RESOURCES,
                    DatReturnSubtype.RESOURCE_DEVICE,
                    "the sim provider has " + MAX_IA_INSTANCES + " IAs open (max_ia_instances)");
        }
        SimFabrics.Entry fabric = null;
        try {
            fabric = SimFabrics.acquire(name);
            Device device = fabric.device(name);
            SimFabrics.deviceOpened(fabric, device);
            SimIa ia = new SimIa(this, request, name, fabric, device);
            ia.open();
            return ia;
        } catch (RuntimeException e) {
            OPEN_IAS.decrementAndGet();
            if (fabric != null) {
                SimFabrics.release(fabric);
            }
            throw e;
        }
    }

    /** An IA closed. */
    void iaClosed(SimIa ia) {
        OPEN_IAS.decrementAndGet();
        SimFabrics.release(ia.fabricEntry);
    }

    /** The provider's attributes (DAT_PROVIDER_ATTR) for an IA. */
    ProviderAttributes attributes() {
        return ProviderAttributes.builder()
                .providerName(NAME)
                .providerVersionMajor(versionMajor())
                .providerVersionMinor(versionMinor())
                .daplVersionMajor(Dat.VERSION_MAJOR)
                .daplVersionMinor(Dat.VERSION_MINOR)
                .lmrMemTypesSupported(EnumSet.of(MemoryType.VIRTUAL, MemoryType.LMR, MemoryType.SHARED_VIRTUAL))
                .iovOwnershipOnReturn(IovOwnership.CONSUMER)
                .qosSupported(EnumSet.of(Qos.BEST_EFFORT))
                .completionFlagsSupported(EnumSet.allOf(CompletionFlag.class))
                .threadSafe(true)
                .maxPrivateDataSize(MAX_PRIVATE_DATA)
                .supportsMultipath(false)
                .epCreator(PspEpCreator.IF_ASKED)
                .pzSupport(PzSupport.SHAREABLE)
                .optimalBufferAlignment(64)
                .evdStreamMerging(EvdStreamMerging.all())
                .srqSupported(true)
                .srqWatermarksSupported(1)
                .srqEpPzDifferenceSupported(false)
                .srqInfoSupported(1)
                .epRecvInfoSupported(1)
                .lmrSyncRequired(false)
                .dtoAsyncReturnGuaranteed(false)
                .rdmaWriteForRdmaReadRequired(false)
                .providerSpecificAttributes(
                        List.of(new NamedAttribute("simrdma.transport", "IBA RC over a simulated fabric")))
                .maxIaInstances(MAX_IA_INSTANCES)
                .build();
    }
}
