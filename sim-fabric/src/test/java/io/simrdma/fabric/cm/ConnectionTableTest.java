package io.simrdma.fabric.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The rejected requests {@link ConnectionTable} remembers to answer a duplicate REQ: how long, how many. */
class ConnectionTableTest {

    private static final byte[] REJ = {1, 2, 3};

    @Test
    @DisplayName("IBA 12.9.6: a refused request's REJ answers its duplicates until the requester's resends are over")
    void shouldForgetARejectionWhenItExpires() {
        ConnectionTable t = new ConnectionTable();
        t.rememberRejection(7, 11, REJ, 1_000, 0);
        assertArrayEquals(REJ, t.rejected(7, 11, 999), "remembered before its expiry");
        assertNull(t.rejected(7, 12, 999), "another comm ID of the same requester is another request");
        assertNull(t.rejected(8, 11, 999), "the same comm ID of another requester is another request");
        assertNull(t.rejected(7, 11, 1_000), "forgotten at its expiry");
        assertEquals(0, t.rejectionsRemembered(1_000), "nothing left after the expiry");
    }

    @Test
    @DisplayName("a CM's memory of rejected requests is bounded: beyond the limit the oldest is forgotten first")
    void shouldForgetTheOldestRejectionWhenTheLimitIsReached() {
        ConnectionTable t = new ConnectionTable();
        for (int i = 0; i <= ConnectionTable.MAX_REJECTIONS; i++) {
            t.rememberRejection(7, i, REJ, Long.MAX_VALUE, 0);
        }
        assertEquals(ConnectionTable.MAX_REJECTIONS, t.rejectionsRemembered(0), "expected the limit");
        assertNull(t.rejected(7, 0, 0), "the oldest is forgotten");
        assertArrayEquals(REJ, t.rejected(7, 1, 0), "the next oldest is kept");
        assertArrayEquals(REJ, t.rejected(7, ConnectionTable.MAX_REJECTIONS, 0), "the newest is kept");
    }
}
