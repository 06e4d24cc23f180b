/**
 * Packet captures Wireshark reads: the traffic of a fabric, or of one link, written as RoCEv2
 * frames (Ethernet, IPv4 or IPv6 from the GIDs, UDP port 4791, the InfiniBand transport headers,
 * payload and a correct ICRC) into a pcapng file with a comment on each packet saying what the
 * fabric did to it. Start one with {@link io.simrdma.fabric.capture.PacketCapture#on}.
 */
package io.simrdma.fabric.capture;
