package io.simrdma.conformance;

import java.util.List;

/**
 * One step of a sequence: a DAT call (or an observation, or letting time pass) on objects named by
 * symbols. {@link #run} asks the model what the pages allow, makes the call on the provider, compares
 * and updates the model; it throws {@link Skip} if an object it names does not exist in the run.
 * Actions are values: a sequence can be replayed, and shrunk through {@link #simpler()}.
 */
interface Action {

    /** Executes the action in {@code r}. */
    void run(Run r);

    /** The man page of the call (for reporting a failure the action's own checks do not name). */
    String page();

    /** Simpler variants of this action (shorter transfers, fewer segments, no private data), simplest first. */
    default List<Action> simpler() {
        return List.of();
    }
}
