package io.simrdma.dat;

import java.util.List;

/**
 * What {@link DatRegistry#listProviders(int)} (dat_registry_list_providers) returns: at most
 * {@code max_to_return} entries, and the number of entries in the registry at the time of the call.
 * Where C fails with {@code DAT_INVALID_PARAMETER} because the consumer's array is too small (and
 * returns the count so the consumer can retry with a larger one), Java returns the entries that fit
 * and {@link #isComplete()} is false.
 *
 * <p>Thread safety: immutable.
 *
 * @param providers the entries returned, in registry order
 * @param totalCount the number of entries in the registry (a snapshot)
 */
public record ProviderList(List<ProviderInfo> providers, int totalCount) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} if the list is null or longer than
     *         {@code totalCount}
     */
    public ProviderList {
        providers = Checks.list(providers, "providers");
        if (totalCount < providers.size()) {
            throw DatException.invalidParameter(
                    "totalCount " + totalCount + " is less than the " + providers.size() + " entries returned");
        }
    }

    /** Whether every entry of the registry was returned. */
    public boolean isComplete() {
        return providers.size() == totalCount;
    }
}
