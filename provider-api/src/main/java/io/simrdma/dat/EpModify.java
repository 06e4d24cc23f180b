package io.simrdma.dat;

import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The parameters a {@link Endpoint#modify dat_ep_modify} call changes, together with its mask
 * ({@code DAT_EP_PARAM_MASK}): each builder setter both sets a value and adds its
 * {@link EpParamField} to {@link #fields()}, so value and mask cannot disagree. Fields that
 * dat_ep_modify can never change (IA, state, addresses, port qualifiers, SRQ) have no setter;
 * {@link #from(EpParams, Set)}, the C-style form, rejects them.
 *
 * <p>{@code ep_transport_specific_count} and the array are one list here, and so are the
 * provider-specific ones: setting the list sets both mask bits.
 *
 * <p>A value getter returns the value to set when {@link #fields()} holds its field, and is
 * meaningless otherwise. A {@code null} handle means {@code DAT_HANDLE_NULL}.
 *
 * <p>Thread safety: immutable.
 */
public final class EpModify {

    private final Set<EpParamField> fields;
    private final ProtectionZone pz;
    private final EventDispatcher recvEvd;
    private final EventDispatcher requestEvd;
    private final EventDispatcher connectEvd;
    private final EpAttributes values;

    private EpModify(
            Set<EpParamField> fields,
            ProtectionZone pz,
            EventDispatcher recvEvd,
            EventDispatcher requestEvd,
            EventDispatcher connectEvd,
            EpAttributes values) {
        EnumSet<EpParamField> copy = EnumSet.noneOf(EpParamField.class);
        copy.addAll(fields);
        this.fields = Collections.unmodifiableSet(copy);
        this.pz = pz;
        this.recvEvd = recvEvd;
        this.requestEvd = requestEvd;
        this.connectEvd = connectEvd;
        this.values = values;
    }

    /** A builder with no field set. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The C form of dat_ep_modify: the fields of {@code params} named by {@code fields}.
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} if {@code fields} holds a field that can
     *         never be modified ({@link EpParamField#modifiable()} is false), or an argument is null
     */
    public static EpModify from(EpParams params, Set<EpParamField> fields) {
        Checks.notNull(params, "params");
        Set<EpParamField> mask = Checks.enumSet(fields, EpParamField.class, "fields");
        EnumSet<EpParamField> normalized = EnumSet.noneOf(EpParamField.class);
        for (EpParamField f : mask) {
            if (!f.modifiable()) {
                throw DatException.invalidParameter("dat_ep_modify cannot change " + f);
            }
            normalized.add(f);
        }
        pairUp(normalized, EpParamField.EP_ATTR_NUM_TRANSPORT_ATTR, EpParamField.EP_ATTR_TRANSPORT_SPECIFIC_ATTR);
        pairUp(normalized, EpParamField.EP_ATTR_NUM_PROVIDER_ATTR, EpParamField.EP_ATTR_PROVIDER_SPECIFIC_ATTR);
        return new EpModify(
                normalized,
                params.pz().orElse(null),
                params.recvEvd().orElse(null),
                params.requestEvd().orElse(null),
                params.connectEvd().orElse(null),
                params.attributes());
    }

    private static void pairUp(EnumSet<EpParamField> set, EpParamField a, EpParamField b) {
        if (set.contains(a) || set.contains(b)) {
            set.add(a);
            set.add(b);
        }
    }

    /** The fields to change: the mask. */
    public Set<EpParamField> fields() {
        return fields;
    }

    /** Whether {@code field} is to change. */
    public boolean contains(EpParamField field) {
        return fields.contains(field);
    }

    /** The C {@code DAT_EP_PARAM_MASK} word. */
    public long mask() {
        return BitFlag.toBits(fields);
    }

    /** The new PZ ({@link EpParamField#PZ_HANDLE}). */
    public ProtectionZone pz() {
        return pz;
    }

    /** The new receive EVD ({@link EpParamField#RECV_EVD_HANDLE}); null is {@code DAT_HANDLE_NULL}. */
    public EventDispatcher recvEvd() {
        return recvEvd;
    }

    /** The new request EVD ({@link EpParamField#REQUEST_EVD_HANDLE}); null is {@code DAT_HANDLE_NULL}. */
    public EventDispatcher requestEvd() {
        return requestEvd;
    }

    /** The new connect EVD ({@link EpParamField#CONNECT_EVD_HANDLE}); null is {@code DAT_HANDLE_NULL}. */
    public EventDispatcher connectEvd() {
        return connectEvd;
    }

    /**
     * The new attribute values: each attribute whose {@code EP_ATTR_*} field is in {@link #fields()}
     * is the value to set; the others are meaningless.
     */
    public EpAttributes attributeValues() {
        return values;
    }

    /**
     * {@code current} with the attributes this modification changes replaced; a provider's helper
     * for applying a modify it has allowed.
     */
    public EpAttributes applyTo(EpAttributes current) {
        Checks.notNull(current, "current");
        EpAttributes.Builder b = current.toBuilder();
        for (EpParamField f : fields) {
            switch (f) {
                case EP_ATTR_SERVICE_TYPE -> b.serviceType(values.serviceType());
                case EP_ATTR_MAX_MESSAGE_SIZE -> b.maxMessageSize(values.maxMessageSize());
                case EP_ATTR_MAX_RDMA_SIZE -> b.maxRdmaSize(values.maxRdmaSize());
                case EP_ATTR_QOS -> b.qos(values.qos());
                case EP_ATTR_RECV_COMPLETION_FLAGS -> b.recvCompletionFlags(values.recvCompletionFlags());
                case EP_ATTR_REQUEST_COMPLETION_FLAGS -> b.requestCompletionFlags(values.requestCompletionFlags());
                case EP_ATTR_MAX_RECV_DTOS -> b.maxRecvDtos(values.maxRecvDtos());
                case EP_ATTR_MAX_REQUEST_DTOS -> b.maxRequestDtos(values.maxRequestDtos());
                case EP_ATTR_MAX_RECV_IOV -> b.maxRecvIov(values.maxRecvIov());
                case EP_ATTR_MAX_REQUEST_IOV -> b.maxRequestIov(values.maxRequestIov());
                case EP_ATTR_MAX_RDMA_READ_IN -> b.maxRdmaReadIn(values.maxRdmaReadIn());
                case EP_ATTR_MAX_RDMA_READ_OUT -> b.maxRdmaReadOut(values.maxRdmaReadOut());
                case EP_ATTR_SRQ_SOFT_HW -> b.srqSoftHw(values.srqSoftHw());
                case EP_ATTR_MAX_RDMA_READ_IOV -> b.maxRdmaReadIov(values.maxRdmaReadIov());
                case EP_ATTR_MAX_RDMA_WRITE_IOV -> b.maxRdmaWriteIov(values.maxRdmaWriteIov());
                case EP_ATTR_NUM_TRANSPORT_ATTR, EP_ATTR_TRANSPORT_SPECIFIC_ATTR ->
                    b.transportSpecific(values.transportSpecific());
                case EP_ATTR_NUM_PROVIDER_ATTR, EP_ATTR_PROVIDER_SPECIFIC_ATTR ->
                    b.providerSpecific(values.providerSpecific());
                default -> {
                    // handles: not attributes
                }
            }
        }
        return b.build();
    }

    @Override
    public String toString() {
        return "EpModify" + fields;
    }

    /**
     * Builds an {@link EpModify}; each setter adds its field to the mask.
     *
     * <p>Thread safety: not thread-safe.
     */
    public static final class Builder {
        private final EnumSet<EpParamField> fields = EnumSet.noneOf(EpParamField.class);
        private final EpAttributes.Builder values = EpAttributes.builder();
        private ProtectionZone pz;
        private EventDispatcher recvEvd;
        private EventDispatcher requestEvd;
        private EventDispatcher connectEvd;

        private Builder() {}

        private Builder set(EpParamField f) {
            fields.add(f);
            return this;
        }

        /** The PZ ({@link EpParamField#PZ_HANDLE}). */
        public Builder pz(ProtectionZone v) {
            pz = v;
            return set(EpParamField.PZ_HANDLE);
        }

        /** The receive EVD ({@link EpParamField#RECV_EVD_HANDLE}); null for none. */
        public Builder recvEvd(EventDispatcher v) {
            recvEvd = v;
            return set(EpParamField.RECV_EVD_HANDLE);
        }

        /** The request EVD ({@link EpParamField#REQUEST_EVD_HANDLE}); null for none. */
        public Builder requestEvd(EventDispatcher v) {
            requestEvd = v;
            return set(EpParamField.REQUEST_EVD_HANDLE);
        }

        /** The connect EVD ({@link EpParamField#CONNECT_EVD_HANDLE}); null for none. */
        public Builder connectEvd(EventDispatcher v) {
            connectEvd = v;
            return set(EpParamField.CONNECT_EVD_HANDLE);
        }

        /** {@link EpParamField#EP_ATTR_SERVICE_TYPE}. */
        public Builder serviceType(ServiceType v) {
            values.serviceType(v);
            return set(EpParamField.EP_ATTR_SERVICE_TYPE);
        }

        /** {@link EpParamField#EP_ATTR_MAX_MESSAGE_SIZE}. */
        public Builder maxMessageSize(long v) {
            values.maxMessageSize(v);
            return set(EpParamField.EP_ATTR_MAX_MESSAGE_SIZE);
        }

        /** {@link EpParamField#EP_ATTR_MAX_RDMA_SIZE}. */
        public Builder maxRdmaSize(long v) {
            values.maxRdmaSize(v);
            return set(EpParamField.EP_ATTR_MAX_RDMA_SIZE);
        }

        /** {@link EpParamField#EP_ATTR_QOS}. */
        public Builder qos(Qos v) {
            values.qos(v);
            return set(EpParamField.EP_ATTR_QOS);
        }

        /** {@link EpParamField#EP_ATTR_RECV_COMPLETION_FLAGS}. */
        public Builder recvCompletionFlags(Set<CompletionFlag> v) {
            values.recvCompletionFlags(v);
            return set(EpParamField.EP_ATTR_RECV_COMPLETION_FLAGS);
        }

        /** {@link EpParamField#EP_ATTR_REQUEST_COMPLETION_FLAGS}. */
        public Builder requestCompletionFlags(Set<CompletionFlag> v) {
            values.requestCompletionFlags(v);
            return set(EpParamField.EP_ATTR_REQUEST_COMPLETION_FLAGS);
        }

        /** {@link EpParamField#EP_ATTR_MAX_RECV_DTOS}. */
        public Builder maxRecvDtos(int v) {
            values.maxRecvDtos(v);
            return set(EpParamField.EP_ATTR_MAX_RECV_DTOS);
        }

        /** {@link EpParamField#EP_ATTR_MAX_REQUEST_DTOS}. */
        public Builder maxRequestDtos(int v) {
            values.maxRequestDtos(v);
            return set(EpParamField.EP_ATTR_MAX_REQUEST_DTOS);
        }

        /** {@link EpParamField#EP_ATTR_MAX_RECV_IOV}. */
        public Builder maxRecvIov(int v) {
            values.maxRecvIov(v);
            return set(EpParamField.EP_ATTR_MAX_RECV_IOV);
        }

        /** {@link EpParamField#EP_ATTR_MAX_REQUEST_IOV}. */
        public Builder maxRequestIov(int v) {
            values.maxRequestIov(v);
            return set(EpParamField.EP_ATTR_MAX_REQUEST_IOV);
        }

        /** {@link EpParamField#EP_ATTR_MAX_RDMA_READ_IN}. */
        public Builder maxRdmaReadIn(int v) {
            values.maxRdmaReadIn(v);
            return set(EpParamField.EP_ATTR_MAX_RDMA_READ_IN);
        }

        /** {@link EpParamField#EP_ATTR_MAX_RDMA_READ_OUT}. */
        public Builder maxRdmaReadOut(int v) {
            values.maxRdmaReadOut(v);
            return set(EpParamField.EP_ATTR_MAX_RDMA_READ_OUT);
        }

        /** {@link EpParamField#EP_ATTR_SRQ_SOFT_HW}. */
        public Builder srqSoftHw(int v) {
            values.srqSoftHw(v);
            return set(EpParamField.EP_ATTR_SRQ_SOFT_HW);
        }

        /** {@link EpParamField#EP_ATTR_MAX_RDMA_READ_IOV}. */
        public Builder maxRdmaReadIov(int v) {
            values.maxRdmaReadIov(v);
            return set(EpParamField.EP_ATTR_MAX_RDMA_READ_IOV);
        }

        /** {@link EpParamField#EP_ATTR_MAX_RDMA_WRITE_IOV}. */
        public Builder maxRdmaWriteIov(int v) {
            values.maxRdmaWriteIov(v);
            return set(EpParamField.EP_ATTR_MAX_RDMA_WRITE_IOV);
        }

        /** The transport-specific attributes (both their count and array bits). */
        public Builder transportSpecific(List<NamedAttribute> v) {
            values.transportSpecific(v);
            set(EpParamField.EP_ATTR_NUM_TRANSPORT_ATTR);
            return set(EpParamField.EP_ATTR_TRANSPORT_SPECIFIC_ATTR);
        }

        /** The provider-specific attributes (both their count and array bits). */
        public Builder providerSpecific(List<NamedAttribute> v) {
            values.providerSpecific(v);
            set(EpParamField.EP_ATTR_NUM_PROVIDER_ATTR);
            return set(EpParamField.EP_ATTR_PROVIDER_SPECIFIC_ATTR);
        }

        /**
         * The modification.
         *
         * @throws DatException {@code DAT_INVALID_PARAMETER} if a value set is invalid (a negative
         *         count, a null enum or set)
         */
        public EpModify build() {
            return new EpModify(fields, pz, recvEvd, requestEvd, connectEvd, values.build());
        }
    }
}
