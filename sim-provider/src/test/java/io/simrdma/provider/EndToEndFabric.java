package io.simrdma.provider;

/**
 * The fabrics {@link EndToEndTest} runs every scenario over, each given by the IA name of one node:
 * a template in which {@code {fabric}} becomes a name unique to one test and {@code {node}} the
 * node's name ({@code a}, {@code b}). Nodes of one test name the same fabric and reach each other
 * by the addresses dat_ia_query(3DAT) gives; nothing else about the fabric is assumed (no
 * registration, no virtual time, no access to the provider's classes), so another transport is
 * one more constant here. A transport whose names need more than a fabric and a node name
 * overrides {@link #iaName}.
 *
 * <p>Immutable.
 */
enum EndToEndFabric {

    /** In-process, virtual time: the fabric progresses while the test waits. */
    DETERMINISTIC("sim:{fabric}/{node}?mode=deterministic&seed=23"),
    /** In-process, real time, a thread per device. */
    THREADED("sim:{fabric}/{node}?mode=threaded"),
    /**
     * TCP nodes in this JVM over loopback: each listens on a free port (port 0), and the fabric
     * name keeps tests apart (nodes of other fabrics refuse each other).
     */
    TCP("simtcp:127.0.0.1:0?fabric={fabric}&node={node}");

    private final String template;

    EndToEndFabric(String template) {
        this.template = template;
    }

    /** The IA name of node {@code node} of the fabric named {@code fabric}. */
    String iaName(String fabric, String node) {
        return template.replace("{fabric}", fabric).replace("{node}", node);
    }
}
