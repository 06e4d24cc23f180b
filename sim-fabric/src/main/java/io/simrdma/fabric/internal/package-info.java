/**
 * The implementation of sim-fabric. Not an API: nothing outside sim-fabric may import these
 * packages (an architecture test enforces it), and they change without notice.
 *
 * <p>The rooms, lowest first; each imports only the ones below it (the README's module map draws
 * them, {@code LayeringTest} checks them):
 * <ul>
 *   <li>this package: what every layer shares ({@code CounterSet});</li>
 *   <li>{@code mem}: protection domains, memory regions and windows, the key table and the
 *       protection checks of IBA 10.6;</li>
 *   <li>{@code cq}: completion queues and channels;</li>
 *   <li>{@code link}: in-process links, fault injection, routes, the trace;</li>
 *   <li>{@code rc}: the RC transport engine (queue pairs, SRQs, requester, responder, completer);</li>
 *   <li>{@code ucud}: UC and UD queue pairs and address handles (sender, UC and UD receivers),
 *       beside {@code rc}, using only its shared receive queues;</li>
 *   <li>{@code device}: devices (resource tables, the port, asynchronous events) and the fabric.</li>
 * </ul>
 * A lower layer reaches its owner only through an interface it declares itself
 * ({@code mem.MemoryContext}, {@code cq.CqContext}, {@code rc.RcContext},
 * {@code ucud.UnreliableContext}), implemented by the device.
 */
package io.simrdma.fabric.internal;
