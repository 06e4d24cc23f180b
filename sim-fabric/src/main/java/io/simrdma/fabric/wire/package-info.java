/**
 * The IBA wire format: {@link io.simrdma.fabric.wire.Packet} (a pooled flyweight over BTH and the
 * extension headers its opcode carries, plus payload segments), the opcode table
 * {@link io.simrdma.fabric.wire.Opcode}, AETH syndromes, GIDs and 24-bit PSN arithmetic. Public:
 * trace listeners and packet matchers read packets; the TCP codec and capture writers encode them.
 * Depends on nothing else in simrdma but {@code sched}.
 */
package io.simrdma.fabric.wire;
