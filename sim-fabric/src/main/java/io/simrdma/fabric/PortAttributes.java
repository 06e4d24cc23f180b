package io.simrdma.fabric;

/**
 * A port's attributes (struct ibv_port_attr, ibv_query_port(3)). simrdma ports are RoCE-like
 * (link layer Ethernet, addressed by GID, no LIDs).
 *
 * <p>Thread safety: immutable.
 *
 * @param state      logical port state
 * @param maxMtu     largest MTU supported
 * @param activeMtu  MTU in use
 * @param gidTblLen  GID table length (1)
 * @param maxMsgSz   largest message in bytes
 * @param pkeyTblLen P_Key table length (1: the default P_Key 0xFFFF)
 * @param linkLayer  "Ethernet"
 */
public record PortAttributes(
        PortState state, Mtu maxMtu, Mtu activeMtu, int gidTblLen, long maxMsgSz, int pkeyTblLen, String linkLayer) {}
