/**
 * The verbs API of simrdma's simulated fabric: what an application touches, the Java shape of
 * libibverbs (ibv_*). Everything here is an interface, a value or an exception; the
 * implementation lives in {@code io.simrdma.fabric.internal} and may change at any time.
 *
 * <h2>Objects</h2>
 * <ul>
 *   <li>{@link io.simrdma.fabric.Fabric}: devices, the links between them, the clock and the
 *       scheduler (deterministic and seeded, or threaded). Start here: {@code Fabric.deterministic(seed)}.</li>
 *   <li>{@link io.simrdma.fabric.Device} (an opened ibv_context with one port),
 *       {@link io.simrdma.fabric.ProtectionDomain}, {@link io.simrdma.fabric.MemoryRegion},
 *       {@link io.simrdma.fabric.MemoryWindow}, {@link io.simrdma.fabric.CompletionQueue},
 *       {@link io.simrdma.fabric.CompletionChannel}, {@link io.simrdma.fabric.QueuePair} (RC, with
 *       the IBA state machine), {@link io.simrdma.fabric.SharedReceiveQueue}.</li>
 *   <li>{@link io.simrdma.fabric.DeviceProfile}: how a device behaves where real devices differ
 *       (ibta, mlx5, rxe, siw), chosen per device with {@link io.simrdma.fabric.DeviceConfig}; its
 *       limits, {@link io.simrdma.fabric.AtomicCap} and {@link io.simrdma.fabric.DeviceCapability}
 *       flags show in {@link io.simrdma.fabric.DeviceAttributes}.</li>
 *   <li>{@link io.simrdma.fabric.RcConnect}: connects two RC queue pairs out of band, the
 *       ibv_rc_pingpong way, with its attribute defaults written down.</li>
 *   <li>Work requests and completions: {@link io.simrdma.fabric.SendWr},
 *       {@link io.simrdma.fabric.RecvWr}, {@link io.simrdma.fabric.WorkCompletion}; reusable, so
 *       that posting and polling allocate nothing.</li>
 *   <li>Attributes and enums ({@link io.simrdma.fabric.QpAttr}, {@link io.simrdma.fabric.QpState},
 *       {@link io.simrdma.fabric.WcStatus}, ...), asynchronous events, counters.</li>
 *   <li>Faults and observation: {@link io.simrdma.fabric.Link} with {@link io.simrdma.fabric.FaultRule}s
 *       (drop, duplicate, delay, reorder, corrupt, rewrite by {@link io.simrdma.fabric.PacketRewrite},
 *       hold until a time or a {@link io.simrdma.fabric.FaultGate}, observe),
 *       {@link io.simrdma.fabric.PacketMatcher}s and crafted packets ({@link io.simrdma.fabric.Link#inject});
 *       {@link io.simrdma.fabric.TraceListener}.</li>
 * </ul>
 *
 * <h2>Errors</h2>
 * Misuse (a bad argument, a wrong state, a full queue) throws {@link io.simrdma.fabric.VerbsException}
 * (or its {@link io.simrdma.fabric.PostException} for posts) carrying the errno the man page names.
 * What happens on the wire (access errors, retries exhausted, flushes) is a completion status or
 * an asynchronous event, never an exception.
 *
 * <h2>Who may use it</h2>
 * Applications, tests, the DAT provider (sim-provider) and the tools. Related public packages:
 * {@code cm} (rdma_cm), {@code tcp} (nodes in other JVMs), {@code wire} (packets, for trace
 * listeners and matchers) and {@code sched} (schedulers and executors).
 */
package io.simrdma.fabric;
