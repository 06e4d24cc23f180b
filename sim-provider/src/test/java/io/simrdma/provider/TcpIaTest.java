package io.simrdma.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.CompletionFlag;
import io.simrdma.dat.ConnectFlag;
import io.simrdma.dat.ConnectionEvent;
import io.simrdma.dat.ConnectionRequestEvent;
import io.simrdma.dat.Dat;
import io.simrdma.dat.DatEvent;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnSubtype;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.DtoCompletionEvent;
import io.simrdma.dat.DtoCompletionStatus;
import io.simrdma.dat.Endpoint;
import io.simrdma.dat.EvdFlag;
import io.simrdma.dat.EvdWaitResult;
import io.simrdma.dat.EventDispatcher;
import io.simrdma.dat.EventNumber;
import io.simrdma.dat.InterfaceAdapter;
import io.simrdma.dat.LmrTriplet;
import io.simrdma.dat.LocalMemoryRegion;
import io.simrdma.dat.MemoryPrivilege;
import io.simrdma.dat.ProtectionZone;
import io.simrdma.dat.PspFlag;
import io.simrdma.dat.Qos;
import io.simrdma.dat.RegionDescription;
import io.simrdma.dat.RmrTriplet;
import io.simrdma.dat.Timeout;
import io.simrdma.fabric.tcp.FabricPki;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code simtcp:} IAs on a network: TLS credentials in the IA name, the cause of a refused
 * connection in the DAT event, socket failures as DatExceptions naming the address, strict
 * parsing of the name, and secrets never shown.
 */
class TcpIaTest {

    @TempDir
    static Path pki;

    @BeforeAll
    static void credentials() throws Exception {
        List<InetAddress> loopback = List.of(InetAddress.getByName("127.0.0.1"));
        FabricPki.createCa(pki.resolve("ca"), "simrdma", Duration.ofDays(1));
        FabricPki.createNode(pki.resolve("ca"), pki.resolve("a"), "a", loopback, Duration.ofDays(1));
        FabricPki.createNode(pki.resolve("ca"), pki.resolve("b"), "b", loopback, Duration.ofDays(1));
    }

    private static String tls(String node) {
        return "&tls=" + pki.resolve(node).toAbsolutePath();
    }

    private static DatEvent next(EventDispatcher evd) {
        EvdWaitResult r = evd.waitForEvent(Timeout.ofMillis(30_000), 1);
        assertTrue(r.event().isPresent(), "no event within 30 s");
        return r.event().get();
    }

    /** One side's objects: a PZ, an EVD for every stream, an 8 KiB region, an EP. */
    private record End(InterfaceAdapter ia, EventDispatcher evd, LocalMemoryRegion lmr, ByteBuffer buf, Endpoint ep) {
        static End on(InterfaceAdapter ia) {
            ProtectionZone pz = ia.createPz();
            EventDispatcher evd = ia.createEvd(64, null, EnumSet.of(EvdFlag.CR, EvdFlag.CONNECTION, EvdFlag.DTO));
            ByteBuffer buf = ByteBuffer.allocateDirect(8192);
            LocalMemoryRegion lmr = ia.createLmr(new RegionDescription.Virtual(buf), pz, MemoryPrivilege.all());
            return new End(ia, evd, lmr, buf, ia.createEndpoint(pz, evd, evd, evd, null));
        }

        void connect(InterfaceAdapter to) {
            ep.connect(
                    to.query().iaAttributes().iaAddress(),
                    4711,
                    Timeout.ofMillis(30_000),
                    null,
                    Qos.BEST_EFFORT,
                    EnumSet.noneOf(ConnectFlag.class));
        }
    }

    @DisplayName("dat_ia_open(3DAT) with tls=<dir>: two IAs with credentials of one fabric CA connect and RDMA WRITE")
    @Test
    void shouldConnectAndWriteOverTls() {
        InterfaceAdapter a = Dat.openIa("simtcp:127.0.0.1:0?node=tls-a" + tls("a"), 8);
        InterfaceAdapter b = Dat.openIa("simtcp:127.0.0.1:0?node=tls-b" + tls("b"), 8);
        try {
            End ea = End.on(a);
            End eb = End.on(b);
            b.createPsp(4711, eb.evd(), PspFlag.CONSUMER);
            ea.connect(b);
            ConnectionRequestEvent req = assertInstanceOf(ConnectionRequestEvent.class, next(eb.evd()));
            req.cr().accept(eb.ep(), null);
            assertEquals(
                    EventNumber.CONNECTION_EVENT_ESTABLISHED,
                    assertInstanceOf(ConnectionEvent.class, next(ea.evd())).eventNumber());
            assertEquals(
                    EventNumber.CONNECTION_EVENT_ESTABLISHED,
                    assertInstanceOf(ConnectionEvent.class, next(eb.evd())).eventNumber());
            for (int i = 0; i < 8192; i++) {
                ea.buf().put(i, (byte) (i * 13));
            }
            ea.ep()
                    .postRdmaWrite(
                            List.of(new LmrTriplet(
                                    ea.lmr().lmrContext(), ea.lmr().registeredAddress(), 8192)),
                            9,
                            new RmrTriplet(
                                    eb.lmr().rmrContext().orElseThrow(),
                                    eb.lmr().registeredAddress(),
                                    8192),
                            CompletionFlag.defaults());
            assertEquals(
                    DtoCompletionStatus.SUCCESS,
                    assertInstanceOf(DtoCompletionEvent.class, next(ea.evd())).status());
            assertEquals(ea.buf(), eb.buf(), "the RDMA WRITE crossed TLS intact");
        } finally {
            a.close(CloseFlag.ABRUPT);
            b.close(CloseFlag.ABRUPT);
        }
    }

    @DisplayName(
            "dat_ep_connect(3DAT) to a TLS IA from a plain one: CONNECTION_EVENT_UNREACHABLE whose reason names NO_TLS")
    @Test
    void shouldNameTheCauseWhenTheNodeRefusesTheConnection() {
        InterfaceAdapter a = Dat.openIa("simtcp:127.0.0.1:0?node=plain-a", 8);
        InterfaceAdapter b = Dat.openIa("simtcp:127.0.0.1:0?node=tls-b2" + tls("b"), 8);
        try {
            End ea = End.on(a);
            End eb = End.on(b);
            b.createPsp(4711, eb.evd(), PspFlag.CONSUMER);
            ea.connect(b);
            ConnectionEvent e = assertInstanceOf(ConnectionEvent.class, next(ea.evd()));
            assertEquals(EventNumber.CONNECTION_EVENT_UNREACHABLE, e.eventNumber());
            String reason = e.reasonText().orElse("");
            assertTrue(reason.contains("NO_TLS") && reason.contains("refused the handshake"), "the reason: " + reason);
            assertTrue(e.toString().contains(reason), e.toString());
        } finally {
            a.close(CloseFlag.ABRUPT);
            b.close(CloseFlag.ABRUPT);
        }
    }

    @DisplayName(
            "dat_ia_open(3DAT) on a port in use: DAT_INSUFFICIENT_RESOURCES naming the address, not a socket exception")
    @Test
    void shouldNameTheAddressWhenThePortIsInUse() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            DatException e =
                    assertThrows(DatException.class, () -> Dat.openIa("simtcp:127.0.0.1:" + taken.getLocalPort(), 8));
            assertEquals(DatReturnType.INSUFFICIENT_RESOURCES, e.type());
            assertEquals(
                    "cannot listen on 127.0.0.1:" + taken.getLocalPort()
                            + ": the address is in use (another node or program listens there)",
                    e.detail());
        }
    }

    @DisplayName("dat_ia_open(3DAT): a plain node on a non-loopback address is refused unless insecure=true")
    @Test
    void shouldRefuseAPlainNodeOffLoopbackUnlessInsecure() {
        DatException e = assertThrows(DatException.class, () -> Dat.openIa("simtcp:10.255.255.1:0", 8));
        assertEquals(DatReturnType.INVALID_PARAMETER, e.type());
        assertTrue(e.detail().contains("without TLS"), e.detail());
        // allowed, it then fails to bind an address this host does not have: the address is named
        DatException bind =
                assertThrows(DatException.class, () -> Dat.openIa("simtcp:10.255.255.1:0?insecure=true", 8));
        assertEquals(DatReturnType.INSUFFICIENT_RESOURCES, bind.type());
        assertTrue(bind.detail().startsWith("cannot listen on 10.255.255.1:0: "), bind.detail());
    }

    @DisplayName("dat_ia_open(3DAT): a malformed simtcp name -> DAT_INVALID_PARAMETER naming the option")
    @ParameterizedTest
    @ValueSource(
            strings = {
                "simtcp:127.0.0.1:0?node=a&node=b|node is given twice",
                "simtcp:127.0.0.1:0?|empty option list",
                "simtcp:127.0.0.1:0?node=a&&fabric=b|empty option",
                "simtcp:127.0.0.1:0?node=a&|empty option",
                "simtcp:127.0.0.1:0?node=|node has no value",
                "simtcp:127.0.0.1:0?node|node has no value",
                "simtcp:127.0.0.1:0?maxQp=99999999999|maxQp must be 1 to 2147483647",
                "simtcp:127.0.0.1:0?maxQp=0|maxQp must be 1 to 2147483647",
                "simtcp:127.0.0.1:0?seed=x|seed needs a number",
                "simtcp:127.0.0.1:0?insecure=maybe|insecure is true or false",
                "simtcp:127.0.0.1:99999|port must be 0..65535",
                "simtcp:127.0.0.1|a port is needed",
                "simtcp:127.0.0.1:0?node=a b|malformed",
                "simtcp:127.0.0.1:0?tls=/no/such/dir|option tls: /no/such/dir/node.crt does not exist",
                "sim:f/d?mode=fast|mode is deterministic or threaded",
                "sim:f/d?seed=1&seed=2|seed is given twice"
            })
    void shouldNameTheOptionWhenTheNameIsMalformed(String caseText) {
        String[] c = caseText.split("\\|");
        DatException e = assertThrows(DatException.class, () -> Dat.openIa(c[0], 8));
        assertEquals(DatReturnType.INVALID_PARAMETER, e.type(), e.getMessage());
        assertEquals(DatReturnSubtype.NO_SUBTYPE, e.subtype());
        assertTrue(e.getMessage().contains(c[1]), "expected '" + c[1] + "' in: " + e.getMessage());
    }

    @DisplayName("the pre-shared key options are refused and their values never shown (message, redacted name)")
    @Test
    void shouldNeverShowAKeyGivenInTheName() {
        String secret = "00112233445566778899aabbccddeeff";
        for (String name : List.of(
                "simtcp:127.0.0.1:0?key=" + secret,
                "simtcp:127.0.0.1:0?node=a&keyFile=/x/" + secret,
                "simtcp:127.0.0.1:0?key=" + secret + "&bogus=1")) {
            DatException e = assertThrows(DatException.class, () -> Dat.openIa(name, 8));
            assertEquals(DatReturnType.INVALID_PARAMETER, e.type());
            assertFalse(e.getMessage().contains(secret), "the key is not shown: " + e.getMessage());
            assertTrue(e.getMessage().contains("=***"), e.getMessage());
        }
        assertEquals(
                "simtcp:h:1?node=a&key=***&fabric=f", IaName.redact("simtcp:h:1?node=a&key=" + secret + "&fabric=f"));
        assertFalse(
                IaName.parse("simtcp:127.0.0.1:0?node=a" + tls("a")).toString().contains("PRIVATE"));
    }

    @DisplayName("option values are percent-decoded: a fabric named 'a&b' survives the name")
    @Test
    void shouldDecodePercentEncodedValues() {
        IaName n = IaName.parse("simtcp:127.0.0.1:0?fabric=a%26b&node=x%3Dy");
        assertEquals("a&b", n.fabric());
        assertEquals("x=y", n.device());
    }
}
