package io.simrdma.dat;

/**
 * A named attribute ({@code DAT_NAMED_ATTR}): a name and a string value, as IA transport and vendor
 * attributes, provider-specific attributes and EP transport/provider-specific attributes are given.
 *
 * <p>Thread safety: immutable.
 *
 * @param name the attribute name, not null
 * @param value the value as a string, not null
 */
public record NamedAttribute(String name, String value) {

    /**
     * @throws DatException {@code DAT_INVALID_PARAMETER} if name or value is null
     */
    public NamedAttribute {
        if (name == null || value == null) {
            throw DatException.invalidParameter("named attribute name and value must not be null");
        }
    }
}
