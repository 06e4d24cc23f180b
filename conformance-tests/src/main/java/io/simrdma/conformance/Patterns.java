package io.simrdma.conformance;

/**
 * The bytes the suite writes into consumer memory and sends as private data: a pattern of a length
 * and a seed, the same in the suite and in a replayed test ({@link JavaReplay} prints this function).
 *
 * <p>Thread safety: stateless.
 */
final class Patterns {

    private Patterns() {}

    /** {@code n} bytes of pattern {@code seed}. */
    static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed * 131 + i * 29 + (i >>> 7) + 1);
        }
        return b;
    }
}
