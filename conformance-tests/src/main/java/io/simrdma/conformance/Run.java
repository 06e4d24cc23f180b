package io.simrdma.conformance;

import io.simrdma.dat.CloseFlag;
import io.simrdma.dat.DatException;
import io.simrdma.dat.DatReturnType;
import io.simrdma.dat.InterfaceAdapter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One run of an action sequence against the provider under test and the reference model: executes
 * each action, compares what the provider did with what the model allows, records every check in
 * the {@link Coverage}, and writes the Java transcript a failure is replayed from. The first
 * disagreement ends the run.
 *
 * <p>Thread safety: not thread-safe; one thread drives a run (the deterministic fabric is driven by
 * the thread that waits).
 */
final class Run implements AutoCloseable {

    /** Whether the transcript gets the model's EP states after each action (-Dconform.debug=true). */
    static final boolean DEBUG = Boolean.getBoolean("conform.debug");

    /** What {@link #call} returns for a call that failed as the model allowed. */
    static final Object FAILED = new Object();

    final RunSettings settings;
    final long seed;
    final long runId = RunSettings.nextRun();
    final Model model;
    final Coverage coverage = new Coverage();
    private final Map<String, Object> live = new HashMap<>();
    private final Map<Object, String> symOf = new IdentityHashMap<>();
    private final List<InterfaceAdapter> opened = new ArrayList<>();
    private final List<String> openedNames = new ArrayList<>();
    /** The Java statements of the run so far: the replay of a failure. */
    final List<String> transcript = new ArrayList<>();
    /** One line per executed action, with its outcome. */
    final List<String> log = new ArrayList<>();

    volatile int index = -1;
    /** Set when the sequence is over and the run closes its IAs (a hang then is dat_ia_close's). */
    volatile boolean closing;

    int executed;
    /** The indexes of the actions that ran (were not skipped). */
    final java.util.BitSet ran = new java.util.BitSet();

    Mismatch failure;
    int failedAt = -1;
    String failedAction;
    private final Map<String, Integer> counters = new HashMap<>();
    private int vars;
    /** The Java expression of the event being observed (for the transcript). */
    String eventExpr = "event";

    /** A fresh transcript variable name {@code prefix<n>}. */
    String var(String prefix) {
        return prefix + (++vars);
    }

    Run(RunSettings settings, long seed) {
        this.settings = settings;
        this.seed = seed;
        this.model = new Model(settings.strict());
    }

    // ------------------------------------------------------------------ handles

    /** Binds {@code sym} to a provider object (a handle, a buffer, a context value). */
    void bind(String sym, Object handle) {
        live.put(sym, handle);
        if (handle != null) {
            symOf.putIfAbsent(handle, sym);
        }
        if (handle instanceof InterfaceAdapter ia) {
            opened.add(ia);
            if (model.get(sym) instanceof M.Ia mi) {
                openedNames.add(mi.name);
            }
        }
    }

    /** The provider object of {@code sym}; skips the action if the run has none. */
    @SuppressWarnings("unchecked")
    <T> T live(String sym) {
        Object o = live.get(sym);
        if (o == null && !live.containsKey(sym)) {
            throw Skip.INSTANCE;
        }
        return (T) o;
    }

    boolean has(String sym) {
        return live.containsKey(sym);
    }

    /** The symbol of a provider object, or null if the run never saw it. */
    String symOf(Object handle) {
        return handle == null ? null : symOf.get(handle);
    }

    /** A fresh symbol {@code prefix<n>} for an object the run learns of (a CR, a provider EP). */
    String fresh(String prefix) {
        int n = counters.merge(prefix, 1, Integer::sum);
        return prefix + n;
    }

    // ------------------------------------------------------------------ calls

    /**
     * Executes a DAT call and compares its outcome with {@code expect}: a success runs the matching
     * alternative's model change with the returned value; a failure must match an error alternative's
     * type (and subtype, where a rule names it). Writes the call to the transcript as
     * {@code decl = java;} (or without {@code decl} when none or the call fails).
     *
     * @return what the call returned, or {@link #FAILED} if it failed as expected
     * @throws Mismatch if the outcome is not allowed
     */
    Object call(Expect expect, String decl, String java, Supplier<?> f) {
        Object ret = null;
        DatException ex = null;
        try {
            ret = f.get();
        } catch (DatException d) {
            ex = d;
        } catch (RuntimeException other) {
            Expect.Alt a = expect.alts.get(0);
            transcript.add(java + "; // FAILS: throws " + other.getClass().getSimpleName());
            throw mismatch(
                    a.check().rule("a DAT call fails only with a DatException carrying the return code"),
                    expect.toString(),
                    "threw " + other);
        }
        if (ex == null) {
            for (Expect.Alt a : expect.alts) {
                if (a.type() == DatReturnType.SUCCESS) {
                    verdict(a.check(), expect, "DAT_SUCCESS");
                    transcript.add((decl == null ? "" : decl + " = ") + java + ";");
                    if (a.effect() != null) {
                        a.effect().accept(ret);
                    }
                    return ret;
                }
            }
            Expect.Alt e = expect.firstError();
            transcript.add(Java.assertDat(e, java) + " // FAILS: the provider returned DAT_SUCCESS");
            fail(expect);
            throw new Mismatch(e.check(), expect.toString(), "DAT_SUCCESS");
        }
        String got = ex.type().cName()
                + (ex.subtype().cName().equals("DAT_NO_SUBTYPE")
                        ? ""
                        : " " + ex.subtype().cName());
        Expect.Alt typed = null;
        Expect.Alt ruled = null;
        for (Expect.Alt a : expect.alts) {
            if (a.type() == ex.type()
                    && (a.subtypes().isEmpty() || a.subtypes().contains(ex.subtype()))
                    && !a.check().alternative()) {
                ruled = a;
                break;
            }
        }
        for (Expect.Alt a : expect.alts) {
            if (ruled != null && a != ruled) {
                // the error a rule or the recorded choice gives wins over an alternative with the same code (two
                // segments, one short of the privilege the choice names, one short of the one the page names)
                continue;
            }
            if (a.type() == ex.type()) {
                if (a.subtypes().isEmpty() || a.subtypes().contains(ex.subtype())) {
                    verdict(a.check(), expect, got);
                    transcript.add(
                            Java.assertDat(a.type(), ex.subtype(), a.subtypes().isEmpty(), java));
                    if (a.effect() != null) {
                        a.effect().accept(null);
                    }
                    return FAILED;
                }
                if (typed == null) {
                    typed = a;
                }
            }
        }
        if (typed != null && typed.subChoice() && !settings.strict()) {
            coverage.record(typed.check(), true);
            note("subtype " + ex.subtype().cName() + " where the recorded choice is " + typed.subtypes() + ": "
                    + typed.check());
            transcript.add(Java.assertDat(typed.type(), ex.subtype(), true, java));
            return FAILED;
        }
        Expect.Alt blame = typed != null ? typed : expect.alts.get(0);
        if (blame.type() == DatReturnType.SUCCESS) {
            transcript.add(java + "; // FAILS: the provider returned " + got + " (" + ex.getMessage() + ")");
        } else {
            transcript.add(Java.assertDat(blame, java) + " // FAILS: the provider returned " + got);
        }
        fail(expect);
        throw new Mismatch(blame.check(), expect.toString(), got + " (" + ex.getMessage() + ")");
    }

    /** Records a matched outcome; an alternative to a recorded choice fails a strict run. */
    private void verdict(Check c, Expect expect, String got) {
        if (c.alternative() && settings.strict()) {
            coverage.record(c, false);
            transcript.add("// FAILS (strict): " + got + " is not the recorded choice " + c.choice());
            throw new Mismatch(c, "the recorded choice (" + c.choice() + ")", got + ", an alternative the pages allow");
        }
        coverage.record(c, true);
        if (c.alternative()) {
            note("alternative outcome " + got + " (" + c + ")");
        }
    }

    private void fail(Expect expect) {
        for (Expect.Alt a : expect.alts) {
            coverage.record(a.check(), false);
        }
    }

    /** Records an observation check: passes, or ends the run with a mismatch. */
    void check(Check c, boolean ok, String expected, Supplier<String> actual) {
        if (ok) {
            if (c.alternative() && settings.strict()) {
                coverage.record(c, false);
                throw new Mismatch(c, "the recorded choice (" + c.choice() + ")", actual.get());
            }
            coverage.record(c, true);
            return;
        }
        coverage.record(c, false);
        String a = actual.get();
        transcript.add("// FAILS: " + c.rule() + ": expected " + expected + ", got " + a);
        throw new Mismatch(c, expected, a);
    }

    /** Ends the run: the provider did something the model does not allow ({@code c}). */
    Mismatch mismatch(Check c, String expected, String actual) {
        coverage.record(c, false);
        return new Mismatch(c, expected, actual);
    }

    /** Records that a check passed (for checks the action evaluates itself). */
    void pass(Check c) {
        coverage.record(c, true);
    }

    /**
     * Records an observation the model allowed by {@code c} (a dequeued connection event, a request arrival): as
     * {@link #verdict} does for a return, an alternative to a recorded choice fails a strict run and is noted as
     * the provider's choice otherwise.
     */
    void observed(Check c, Supplier<String> got) {
        if (c.alternative() && settings.strict()) {
            coverage.record(c, false);
            String g = got.get();
            transcript.add("// FAILS (strict): " + g + " is not the recorded choice " + c.choice());
            throw new Mismatch(c, "the recorded choice (" + c.choice() + ")", g + ", an alternative the pages allow");
        }
        coverage.record(c, true);
        if (c.alternative()) {
            note("alternative outcome " + got.get() + " (" + c + ")");
        }
    }

    final List<String> notes = new ArrayList<>();

    /** A remark for the report (an alternative outcome, a relaxed check). */
    void note(String s) {
        if (notes.size() < 50) {
            notes.add("action " + index + ": " + s);
        }
    }

    /** The bytes of memory segments now, as the consumer sees them in its buffers. */
    byte[] readMemory(List<M.Seg> segs, int n) {
        byte[] out = new byte[n];
        int at = 0;
        for (M.Seg s : segs) {
            int k = Math.min(s.len(), n - at);
            if (k <= 0) {
                break;
            }
            java.nio.ByteBuffer b = live(s.mem().sym);
            for (int i = 0; i < k; i++) {
                out[at + i] = b.get(s.off() + i);
            }
            at += k;
        }
        return at == n ? out : java.util.Arrays.copyOf(out, at);
    }

    /** The consumer fills {@code len} bytes of memory {@code mem} from {@code off} with pattern {@code seed}. */
    void fill(M.Mem mem, int off, int len, int seed) {
        java.nio.ByteBuffer b = live(mem.sym);
        byte[] data = Patterns.bytes(len, seed);
        for (int i = 0; i < len; i++) {
            b.put(off + i, data[i]);
        }
        Rules.consumerWrites(model, mem, off, len, data);
        transcript.add("fill(" + mem.sym + ", " + off + ", " + len + ", " + seed + ");");
    }

    // ------------------------------------------------------------------ driving

    /**
     * Executes {@code a} as action number {@code i}.
     *
     * @return false if the action was skipped (its objects do not exist in this run)
     */
    boolean execute(Action a, int i) {
        index = i;
        int mark = transcript.size();
        try {
            a.run(this);
            executed++;
            ran.set(i);
            if (DEBUG) {
                for (M.Ep ep : model.all(M.Ep.class)) {
                    transcript.add("//   " + ep.sym + " " + ep.state + (ep.wild ? " wild" : "")
                            + (ep.breaking ? " breaking" : "")
                            + (ep.peerEnding ? " peerEnding" : "") + " peer " + ep.peer + " pending "
                            + ep.pending.stream()
                                    .map(sl -> (sl.certain ? "!" : "?") + sl.viable())
                                    .toList() + " arrived " + ep.arrived.size());
                }
            }
            log.add(i + ": " + a);
            return true;
        } catch (Skip s) {
            while (transcript.size() > mark) {
                transcript.remove(transcript.size() - 1);
            }
            return false;
        } catch (Mismatch m) {
            ran.set(i);
            failure = m;
            failedAt = i;
            failedAction = a.toString();
            log.add(i + ": " + a + "  <-- " + m.getMessage());
            return true;
        } catch (DatException unexpected) {
            ran.set(i);
            Check c = Check.ok(a.page(), "a call the model expects to succeed");
            failure = mismatch(c, "DAT_SUCCESS", unexpected.getMessage());
            transcript.add("// FAILS: " + unexpected.getMessage());
            failedAt = i;
            failedAction = a.toString();
            log.add(i + ": " + a + "  <-- " + unexpected);
            return true;
        } catch (RuntimeException thrown) {
            // a provider's handle or event the engine cannot use (a wrong type, a null), or its own failure
            ran.set(i);
            Check c = Check.ok(
                    a.page(),
                    "a DAT call fails only with a DatException carrying the return code, and "
                            + "returns what its page says");
            StackTraceElement[] st = thrown.getStackTrace();
            failure = mismatch(c, "no exception", thrown + (st.length > 0 ? " at " + st[0] : ""));
            transcript.add("// FAILS: " + thrown);
            failedAt = i;
            failedAction = a.toString();
            log.add(i + ": " + a + "  <-- " + thrown);
            return true;
        }
    }

    boolean failed() {
        return failure != null;
    }

    /** Closes every IA the run opened (abruptly), ignoring those already closed. */
    @Override
    public void close() {
        for (InterfaceAdapter ia : opened) {
            try {
                ia.close(CloseFlag.ABRUPT);
            } catch (DatException e) {
                // already closed by the sequence
            } catch (RuntimeException e) {
                note("closing an IA at the end of the run threw " + e);
            }
        }
        opened.clear();
        // dat_provider_fini for the names the run used: a registry that served thousands of runs stays small
        for (String name : openedNames) {
            try {
                settings.registry().unload(name);
            } catch (DatException e) {
                // not initialised by this registry, or still open elsewhere
            }
        }
        openedNames.clear();
    }
}
