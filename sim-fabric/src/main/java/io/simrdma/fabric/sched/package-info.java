/**
 * Scheduling apart from logic: the {@link io.simrdma.fabric.sched.Scheduler} interface with a
 * deterministic implementation (one logical thread, virtual time, seeded choices; a waiting
 * caller drives it) and a threaded one (real time, an executor per device), engine executors,
 * timers and wait signals. Public: tests drive virtual time; the DAT provider runs its own timers
 * and waits here. Depends on nothing else in simrdma.
 */
package io.simrdma.fabric.sched;
