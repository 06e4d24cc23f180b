package io.simrdma.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Names the device a parameter is for: {@code @Node("b") Device b}, {@code @Node("b") InterfaceAdapter ia},
 * {@code @Node("b") Counters c}. Without it a parameter is for the first device of
 * {@link SimFabricTest#devices()}. Immutable (an annotation).
 */
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Node {
    /** The device's name. */
    String value();
}
