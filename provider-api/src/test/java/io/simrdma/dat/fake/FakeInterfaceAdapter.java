package io.simrdma.dat.fake;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.ConsumerNotificationObject;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EpAttributes;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.HandleType;
import io.simrdma.dat.IaAttributes;
import io.simrdma.dat.IaQueryResult;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.ProviderAttributes;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.PublicServicePoint;
import io.simrdma.dat.RegionDescription;
import io.simrdma.dat.ReservedServicePoint;
import io.simrdma.dat.SharedReceiveQueue;
import io.simrdma.dat.SrqAttributes;
import io.simrdma.dat.WaitProxyAgent;
import io.simrdma.dat.spi.IaOpenRequest;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The IA a {@link FakeProvider} opens: it can be queried and closed (telling the registry); it
 * creates no objects, which registry tests do not need.
 */
public final class FakeInterfaceAdapter implements InterfaceAdapter {

    private final IaOpenRequest request;
    private final FakeProvider provider;
    private Object context;
    private boolean closed;

    FakeInterfaceAdapter(IaOpenRequest request, FakeProvider provider) {
        this.request = request;
        this.provider = provider;
    }

    public IaOpenRequest request() {
        return request;
    }

    private void checkOpen() {
        if (closed) {
            throw new DatException(DatReturnType.INVALID_HANDLE, io.simrdma.dat.DatReturnSubtype.INVALID_HANDLE_IA);
        }
    }

    private DatException none() {
        return new DatException(DatReturnType.MODEL_NOT_SUPPORTED, "the fake IA creates no objects");
    }

    @Override
    public HandleType handleType() {
        checkOpen();
        return HandleType.IA;
    }

    @Override
    public Object consumerContext() {
        checkOpen();
        return context;
    }

    @Override
    public void setConsumerContext(Object context) {
        checkOpen();
        this.context = context;
    }

    @Override
    public IaQueryResult query() {
        checkOpen();
        IaAttributes ia = IaAttributes.builder()
                .adapterName(request.iaName())
                .iaAddress(InetSocketAddress.createUnresolved("fake", 1))
                .build();
        ProviderAttributes pa = ProviderAttributes.builder()
                .providerName(provider.name())
                .threadSafe(provider.isThreadSafe())
                .build();
        return new IaQueryResult(Optional.empty(), ia, pa);
    }

    @Override
    public void close(CloseFlag flag) {
        checkOpen();
        closed = true;
        request.notifyClosed();
    }

    @Override
    public EventDispatcher createEvd(int minQlen, ConsumerNotificationObject cno, Set<EvdFlag> flags) {
        throw none();
    }

    @Override
    public ConsumerNotificationObject createCno(WaitProxyAgent agent) {
        throw none();
    }

    @Override
    public ProtectionZone createPz() {
        throw none();
    }

    @Override
    public LocalMemoryRegion createLmr(RegionDescription region, ProtectionZone pz, Set<MemoryPrivilege> privileges) {
        throw none();
    }

    @Override
    public void syncRdmaRead(List<LmrTriplet> segments) {
        throw none();
    }

    @Override
    public void syncRdmaWrite(List<LmrTriplet> segments) {
        throw none();
    }

    @Override
    public Endpoint createEndpoint(
            ProtectionZone pz,
            EventDispatcher recvEvd,
            EventDispatcher requestEvd,
            EventDispatcher connectEvd,
            EpAttributes attributes) {
        throw none();
    }

    @Override
    public Endpoint createEndpointWithSrq(
            ProtectionZone pz,
            EventDispatcher recvEvd,
            EventDispatcher requestEvd,
            EventDispatcher connectEvd,
            SharedReceiveQueue srq,
            EpAttributes attributes) {
        throw none();
    }

    @Override
    public PublicServicePoint createPsp(long connQual, EventDispatcher evd, PspFlag flag) {
        throw none();
    }

    @Override
    public PublicServicePoint createPspAny(EventDispatcher evd, PspFlag flag) {
        throw none();
    }

    @Override
    public ReservedServicePoint createRsp(long connQual, Endpoint ep, EventDispatcher evd) {
        throw none();
    }

    @Override
    public SharedReceiveQueue createSrq(ProtectionZone pz, SrqAttributes attributes) {
        throw none();
    }
}
