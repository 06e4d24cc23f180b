package io.simrdma.provider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class IntTableTest {

    @Test
    void shouldBehaveAsAMapWhenKeysComeAndGoAtRandom() {
        IntTable<String> t = new IntTable<>();
        Map<Integer, String> model = new HashMap<>();
        SplittableRandom r = new SplittableRandom(3);
        for (int i = 0; i < 20_000; i++) {
            int key = r.nextInt(r.nextBoolean() ? 600 : 1 << 24);
            if (r.nextInt(3) == 0) {
                String v = model.get(key);
                assertEquals(v != null, t.remove(key, v == null ? "absent" : v), "remove of " + key);
                model.remove(key);
            } else {
                String v = "v" + i;
                t.put(key, v);
                model.put(key, v);
            }
            int probe = r.nextInt(1 << 24);
            assertEquals(model.get(probe), t.get(probe), "get " + probe);
            assertEquals(model.get(key), t.get(key), "get " + key);
        }
        assertEquals(model.size(), t.size());
    }

    @Test
    void shouldRemoveOnlyTheValueThatIsThere() {
        IntTable<String> t = new IntTable<>();
        t.put(7, "a");
        assertFalse(t.remove(7, "b"), "another value at the key stays");
        assertSame("a", t.get(7));
        assertTrue(t.remove(7, "a"));
        assertNull(t.get(7));
        assertEquals(0, t.size());
    }

    @Test
    void shouldAnswerNullForKeysOutsideTheTable() {
        IntTable<String> t = new IntTable<>();
        t.put(1, "x");
        assertNull(t.get(-1));
        assertNull(t.get(Integer.MAX_VALUE));
        assertThrows(IllegalArgumentException.class, () -> t.put(-5, "y"));
    }
}
