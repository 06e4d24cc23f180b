package io.simrdma.dat;

import java.util.Optional;

/**
 * What {@link InterfaceAdapter#query()} (dat_ia_query) returns.
 *
 * <p>Thread safety: immutable.
 *
 * @param asyncEvd the IA's asynchronous EVD; empty for {@code DAT_EVD_OUT_OF_SCOPE}, when the IA was
 *        opened with {@link AsyncEvdRequest#existsElsewhere()} and its asynchronous EVD is not in
 *        the consumer's scope
 * @param iaAttributes the IA attributes
 * @param providerAttributes the provider attributes
 */
public record IaQueryResult(
        Optional<EventDispatcher> asyncEvd, IaAttributes iaAttributes, ProviderAttributes providerAttributes) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a null component
     */
    public IaQueryResult {
        Checks.notNull(asyncEvd, "asyncEvd");
        Checks.notNull(iaAttributes, "iaAttributes");
        Checks.notNull(providerAttributes, "providerAttributes");
    }
}
