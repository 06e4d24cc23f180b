/**
 * The {@code simrdma} command line ({@link io.simrdma.tools.Simrdma}): {@code demo}, {@code node},
 * {@code ping}, {@code keygen}, {@code bench-tcp} and {@code perf} (in {@code io.simrdma.tools.perf}).
 *
 * <p>Not a library: the commands print to the console and exit with 0 (success), 1 (failure) or
 * 2 (usage error). They use the DAT API through the registry, sim-provider's {@code SimProvider} and
 * sim-fabric's public packages; {@code ModuleLayeringTest} keeps them off every
 * {@code internal} package.
 */
package io.simrdma.tools;
