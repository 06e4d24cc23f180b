package io.simrdma.fabric.wire;

/**
 * Where a link delivers packets: a device's port. Called on the receiving device's executor;
 * the sink owns the packet from then on and must {@link Packet#release() release} it.
 *
 * <p>Thread safety: an implementation is called on the executor that owns the packet, one packet at a
 * time; it takes ownership of the packet it receives.
 */
public interface PacketSink {

    void receive(Packet packet);
}
