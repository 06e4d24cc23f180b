package io.simrdma.dat;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;

/** Stand-in handles for tests of records and events: they know their type and context, nothing else. */
public final class Fakes {

    private Fakes() {}

    /** A handle of interface {@code type} answering handleType, the consumer context, equals and hashCode. */
    public static <T extends DatHandle> T handle(Class<T> type, HandleType handleType) {
        Object[] context = new Object[1];
        InvocationHandler h = (proxy, method, args) -> switch (method.getName()) {
            case "handleType" -> handleType;
            case "consumerContext" -> context[0];
            case "setConsumerContext" -> {
                context[0] = args[0];
                yield null;
            }
            case "equals" -> proxy == args[0];
            case "hashCode" -> System.identityHashCode(proxy);
            case "toString" -> "fake " + type.getSimpleName();
            default ->
                throw new DatException(
                        DatReturnType.MODEL_NOT_SUPPORTED,
                        "fake " + type.getSimpleName() + " has no " + method.getName());
        };
        return type.cast(Proxy.newProxyInstance(Fakes.class.getClassLoader(), new Class<?>[] {type}, h));
    }

    public static EventDispatcher evd() {
        return handle(EventDispatcher.class, HandleType.EVD);
    }

    public static Endpoint ep() {
        return handle(Endpoint.class, HandleType.EP);
    }

    public static InterfaceAdapter ia() {
        return handle(InterfaceAdapter.class, HandleType.IA);
    }
}
