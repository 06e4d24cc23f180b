package io.simrdma.fabric;

import java.util.Arrays;

/** A growable, reusable list of SGEs shared by send and receive work requests. */
final class SgeList {

    private Sge[] sges = new Sge[2];
    private int count;

    Sge add() {
        if (count == sges.length) {
            sges = Arrays.copyOf(sges, count * 2);
        }
        Sge s = sges[count];
        if (s == null) {
            s = new Sge();
            sges[count] = s;
        }
        count++;
        return s;
    }

    Sge get(int i) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("sge " + i + " of " + count);
        }
        return sges[i];
    }

    int count() {
        return count;
    }

    void clear() {
        count = 0;
    }

    /** Sum of the lengths as unsigned values. */
    long totalLength() {
        long t = 0;
        for (int i = 0; i < count; i++) {
            t += Integer.toUnsignedLong(sges[i].length);
        }
        return t;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < count; i++) {
            sb.append(i == 0 ? "" : ", ").append(sges[i]);
        }
        return sb.append(']').toString();
    }
}
