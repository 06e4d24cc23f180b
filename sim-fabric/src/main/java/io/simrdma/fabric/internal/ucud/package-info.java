/**
 * The unreliable transports: UC (unreliable connected) and UD (unreliable datagram) queue pairs
 * and UD address handles.
 *
 * <p>One QP class ({@link io.simrdma.fabric.internal.ucud.UnreliableQueuePair}) holds the state
 * machine ({@link io.simrdma.fabric.internal.ucud.UnreliableTransitions}, IBA 11.2.5.2 table 91's
 * UC and UD columns), the queues and the completions; one role per class does the transport:
 * {@link io.simrdma.fabric.internal.ucud.UnreliableSender} turns send WQEs into packets and
 * completes them as they leave (no acknowledgements), {@link io.simrdma.fabric.internal.ucud.UcReceiver}
 * and {@link io.simrdma.fabric.internal.ucud.UdReceiver} take incoming packets. Nothing is
 * retried: a lost packet loses its message, a datagram nobody can take is dropped and counted.
 *
 * <p>The device is named only through {@link io.simrdma.fabric.internal.ucud.UnreliableContext}; the
 * package uses the memory, completion, link and common layers, and of {@code rc} only the shared
 * receive queue a UD QP may take receives from ({@code SrqImpl}), never the RC engine.
 */
package io.simrdma.fabric.internal.ucud;
