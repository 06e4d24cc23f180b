package io.simrdma.fabric;

/**
 * Asynchronous event types (enum ibv_event_type) a simrdma device raises, with the text
 * ibv_event_type_str(3) gives. Each names the kind of element it is about.
 *
 * <p>Thread safety: immutable.
 */
public enum AsyncEventType {
    CQ_ERR("CQ error", Element.CQ),
    QP_FATAL("local work queue catastrophic error", Element.QP),
    QP_REQ_ERR("invalid request local work queue error", Element.QP),
    QP_ACCESS_ERR("local access violation work queue error", Element.QP),
    COMM_EST("communication established", Element.QP),
    SQ_DRAINED("send queue drained", Element.QP),
    DEVICE_FATAL("local catastrophic error", Element.DEVICE),
    PORT_ACTIVE("port active", Element.PORT),
    PORT_ERR("port error", Element.PORT),
    SRQ_ERR("SRQ catastrophic error", Element.SRQ),
    SRQ_LIMIT_REACHED("SRQ limit reached", Element.SRQ),
    QP_LAST_WQE_REACHED("last WQE reached", Element.QP);

    /** What an event is about. */
    public enum Element {
        QP,
        CQ,
        SRQ,
        PORT,
        DEVICE
    }

    private final String text;
    private final Element element;

    AsyncEventType(String text, Element element) {
        this.text = text;
        this.element = element;
    }

    public String text() {
        return text;
    }

    public Element element() {
        return element;
    }
}
