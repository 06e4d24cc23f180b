package io.simrdma.fabric;

import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Helpers of the device profile tests (Profile*Test): pairs whose devices have given profiles,
 * on both schedulers, and profiles derived from the shipped ones with one choice changed.
 */
final class ProfileSupport {

    private ProfileSupport() {}

    /** The two scheduler modes (ErrorPathSupport's names). */
    static Stream<String> modes() {
        return Stream.of(ErrorPathSupport.DET, ErrorPathSupport.THREADED);
    }

    /** Every scheduler with each profile: arguments (mode, profile). */
    static Stream<Arguments> modesWith(DeviceProfile... profiles) {
        return ErrorPathSupport.modesWith((Object[]) profiles);
    }

    private static Fabric fabric(String mode) {
        return mode.equals(ErrorPathSupport.DET) ? Fabric.deterministic(0x5EED) : Fabric.threaded();
    }

    /** Devices a and b with {@code pa} and {@code pb}, default QP capabilities, CQs of {@code cqe}. */
    static RcPair pair(String mode, DeviceProfile pa, DeviceProfile pb, int cqe) {
        return new RcPair(fabric(mode), pa, pb, QpCaps.defaults(), cqe, false);
    }

    /** Both devices with {@code p}. */
    static RcPair pair(String mode, DeviceProfile p) {
        return pair(mode, p, p, 1024);
    }

    /** ibta with a send posted before RTS dropped (accepted, never executed). */
    static final DeviceProfile DROPPING = DeviceProfile.IBTA
            .derive("ibta-drop", "ibta, dropping sends posted before RTS")
            .postSendBeforeRts(DeviceProfile.PostBeforeRts.DROP, "test")
            .build();

    /** ibta whose QPs in ERR NAK requests as invalid. */
    static final DeviceProfile NAK_INVALID = DeviceProfile.IBTA
            .derive("ibta-nak", "ibta, NAKing requests to a QP in ERR")
            .remoteQpInError(DeviceProfile.RemoteQpInError.NAK_INVALID_REQUEST, "test")
            .build();

    /** mlx5 without atomics (an mlx5 QP created without them fails atomics with EOPNOTSUPP). */
    static final DeviceProfile MLX5_NO_ATOMICS = DeviceProfile.MLX5
            .derive("mlx5-noatomic", "mlx5 without atomics")
            .atomics(false, "test")
            .build();

    /** ibta with type 1 windows only. */
    static final DeviceProfile TYPE_1_ONLY = DeviceProfile.IBTA
            .derive("ibta-mw1", "ibta with type 1 windows only")
            .memoryWindows(java.util.EnumSet.of(MwType.TYPE_1), "test")
            .build();
}
