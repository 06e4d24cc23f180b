/**
 * The Netty TCP link: devices of fabrics in other JVMs and on other hosts reach each other over
 * TCP: one connection per pair of TLS nodes; between plain nodes, one dialled by each.
 *
 * <ul>
 *   <li>{@link io.simrdma.fabric.tcp.TcpNode}: a device of a threaded fabric whose engine runs on
 *       the event loop of its sockets; listens on one IPv4 address and port, which its GID
 *       encodes ({@code fd53:494d::<port>:<IPv4>}); a remote transport and a service of its
 *       fabric. Configured by {@link io.simrdma.fabric.tcp.TcpConfig}.</li>
 *   <li>{@link io.simrdma.fabric.tcp.TcpLink}: the route to one peer node; opens the connection
 *       on first use and again after it closed; link control, fault rules and stats like an
 *       in-process {@link io.simrdma.fabric.Link}.</li>
 *   <li>{@link io.simrdma.fabric.tcp.PacketCodec}: the frame format and the packet encoding
 *       (payload written from registered memory without a copy, received into a slice); a run
 *       of packets of one message as one BURST frame when nothing needs them one by one
 *       (segmentation offload, {@link io.simrdma.fabric.tcp.TcpLink#segmentationOffload(boolean)}).</li>
 *   <li>{@link io.simrdma.fabric.tcp.TlsCredentials}, {@link io.simrdma.fabric.tcp.FabricPki}: TLS 1.3
 *       with mutual authentication through a fabric CA (the dialler is the TLS server, so a listening
 *       node shows nothing before the dialler proved itself); a peer may claim only a GID whose
 *       address its certificate names. Without credentials a node is plain TCP, on loopback unless
 *       {@code insecure}, and sends a peer's packets only over a connection it dialled.</li>
 *   <li>Handshake (package-private {@code Handshake}): version, identity and fabric name, inside
 *       TLS where there is TLS, before any packet.</li>
 *   <li>Bounds ({@link io.simrdma.fabric.tcp.TcpConfig}): caps on connections and handshakes, a
 *       frame timeout, an idle timeout, removal of unused links, rate-limited refusal logs
 *       (package-private {@code RateLimitedLog}).</li>
 *   <li>{@link io.simrdma.fabric.tcp.FrameError}, {@link io.simrdma.fabric.tcp.HandshakeFailure},
 *       {@link io.simrdma.fabric.tcp.TcpCounter}, {@link io.simrdma.fabric.tcp.TcpEvent}: what
 *       goes wrong, counted and reported.</li>
 * </ul>
 *
 * <p>A connection's pipeline, on the node's single event loop thread (also its device's engine
 * thread, so no packet changes threads between the socket and the RC engine):
 * <pre>
 *  inbound:  socket -&gt; [SslHandler] -&gt; FlushConsolidationHandler -&gt; FrameDecoder -&gt; Connection (handshake, checks) -&gt; TcpLink -&gt; Device
 *  outbound: TcpLink.transmit -&gt; Connection.write -&gt; FaultHandler -&gt; FrameEncoder -&gt; FlushConsolidationHandler -&gt; [SslHandler] -&gt; socket
 * </pre>
 * Flushes are coalesced: one per event-loop batch of writes (before encryption, so TLS records
 * stay large). SECURITY.md at the repository root has the threat model.
 */
package io.simrdma.fabric.tcp;
