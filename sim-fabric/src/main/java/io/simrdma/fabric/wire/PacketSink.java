package io.simrdma.fabric.wire;

/**
 * Where a link delivers packets: a device's port. Called on the receiving device's executor;
 * the sink owns the packet from then on and must {@link Packet#release() release} it.
 */
public interface PacketSink {

    void receive(Packet packet);
}
