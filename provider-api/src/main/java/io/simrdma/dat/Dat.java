package io.simrdma.dat;

/**
 * Entry point of the DAT (uDAPL 1.2) API: the process-wide {@link #registry() registry}, opening an
 * Interface Adapter ({@code dat_ia_open}), {@link #strerror(int) dat_strerror}, and the constants of
 * the DAT headers that are plain numbers.
 *
 * <p>Everything else lives on the object it acts on, starting from the {@link InterfaceAdapter}:
 * {@code ia.createPz()}, {@code ep.postSend(...)}, {@code evd.dequeue()}. A C user finds a function
 * through the {@code dat_*} name in each method's javadoc.
 *
 * <pre>{@code
 * try (InterfaceAdapter ia = Dat.openIa("sim:fabric0/dev0", 16)) {
 *     ProtectionZone pz = ia.createPz();
 *     ...
 * }
 * }</pre>
 *
 * <p>Thread safety: all static methods are thread-safe.
 */
public final class Dat {

    /** {@code DAT_VERSION_MAJOR} (udat_config.h): the DAT API major version of this API. */
    public static final int VERSION_MAJOR = 1;
    /** {@code DAT_VERSION_MINOR} (udat_config.h): the DAT API minor version of this API. */
    public static final int VERSION_MINOR = 2;

    /** {@code DAT_NAME_MAX_LENGTH}: 256, including the C string terminator, so names have at most 255 characters. */
    public static final int NAME_MAX_LENGTH = 256;

    /** {@code DAT_CLASS_ERROR}: class bit of an error {@code DAT_RETURN}. */
    public static final int CLASS_ERROR = 0x80000000;
    /** {@code DAT_CLASS_WARNING}: class bit of a warning {@code DAT_RETURN}. */
    public static final int CLASS_WARNING = 0x40000000;
    /** {@code DAT_CLASS_SUCCESS}: class of a successful {@code DAT_RETURN}. */
    public static final int CLASS_SUCCESS = 0x00000000;
    /** {@code DAT_TYPE_MASK}: the major type bits of a {@code DAT_RETURN}. */
    public static final int TYPE_MASK = 0x3FFF0000;
    /** {@code DAT_SUBTYPE_MASK}: the subtype bits of a {@code DAT_RETURN}. */
    public static final int SUBTYPE_MASK = 0x0000FFFF;

    /** {@code DAT_WATERMARK_INFINITE} ({@code (DAT_COUNT)~0}): no high watermark. */
    public static final int WATERMARK_INFINITE = -1;
    /** {@code DAT_HW_DEFAULT}: the default high watermark, {@link #WATERMARK_INFINITE}. */
    public static final int HW_DEFAULT = WATERMARK_INFINITE;
    /** {@code DAT_SRQ_LW_DEFAULT}: the default SRQ low watermark (0, no event). */
    public static final int SRQ_LW_DEFAULT = 0;
    /** {@code DAT_VALUE_UNKNOWN} ({@code ((DAT_COUNT)~0)-1}): a count the provider cannot obtain. */
    public static final int VALUE_UNKNOWN = -2;

    /** {@code DAT_OPTIMAL_ALIGNMENT} (dat_platform_specific.h): 256 bytes. */
    public static final int OPTIMAL_ALIGNMENT = 256;
    /** {@code DAT_LMR_COOKIE_SIZE}: 40 bytes, the size of a shared memory identifier. */
    public static final int LMR_COOKIE_SIZE = 40;

    /**
     * The IA name prefix of dat_ia_open (an illumos addition): a consumer that handles relaxed
     * ordering prefixes the IA name with it; the registry strips it and tells the provider
     * ({@link io.simrdma.dat.spi.IaOpenRequest#relaxedOrderingAware()}).
     */
    public static final String RO_AWARE_PREFIX = "RO_AWARE_";

    private static final Object DEFAULT_LOCK = new Object();
    private static DatRegistry defaultRegistry;

    private Dat() {}

    /**
     * The process-wide registry: providers found with {@link java.util.ServiceLoader} and the
     * static registry of {@link DatConf#locate()}. Created on first use; if creating it fails (a
     * malformed dat.conf, a broken provider), this call throws and the next call tries again.
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} for a malformed dat.conf,
     *         {@code DAT_INTERNAL_ERROR} if dat.conf is named but missing or a provider cannot be
     *         loaded, {@code DAT_PROVIDER_ALREADY_REGISTERED} if two providers share a name
     */
    public static DatRegistry registry() {
        synchronized (DEFAULT_LOCK) {
            if (defaultRegistry == null) {
                defaultRegistry = DatRegistry.load();
            }
            return defaultRegistry;
        }
    }

    /**
     * Opens an IA of the default registry; see {@link DatRegistry#openIa(IaOpenParams)}.
     * Corresponds to {@code dat_ia_open()}.
     */
    public static InterfaceAdapter openIa(IaOpenParams params) {
        return registry().openIa(params);
    }

    /**
     * Opens an IA and has the provider create its asynchronous EVD with a queue of at least
     * {@code asyncEvdMinQlen} events ({@code *async_evd_handle == DAT_HANDLE_NULL}), asking for DAT
     * 1.2 and a thread-safe provider. Corresponds to {@code dat_ia_open()}.
     *
     * @throws DatException see {@link DatRegistry#openIa(IaOpenParams)}
     */
    public static InterfaceAdapter openIa(String iaName, int asyncEvdMinQlen) {
        return registry().openIa(iaName, asyncEvdMinQlen);
    }

    /**
     * Opens an IA whose asynchronous events go to an existing EVD of the same provider; the provider
     * creates none. Corresponds to {@code dat_ia_open()} with a consumer-passed
     * {@code async_evd_handle}.
     *
     * @throws DatException see {@link DatRegistry#openIa(IaOpenParams)}
     */
    public static InterfaceAdapter openIa(String iaName, EventDispatcher asyncEvd) {
        return openIa(IaOpenParams.of(iaName, AsyncEvdRequest.use(asyncEvd)));
    }

    /**
     * The two messages for a {@code DAT_RETURN} value. Corresponds to {@code dat_strerror()}. The
     * major message is the type's C name ({@link DatReturnType#cName()}), the minor message the
     * subtype's C name, or the empty string for {@code DAT_NO_SUBTYPE}. The class bits may be
     * {@link #CLASS_SUCCESS}, {@link #CLASS_ERROR} or {@link #CLASS_WARNING}. {@code 0}
     * ({@code DAT_SUCCESS}) succeeds.
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} if {@code code} is not a defined
     *         {@code DAT_RETURN}: unknown type or subtype bits, both class bits set, or a success with
     *         class or subtype bits
     */
    public static DatErrorText strerror(int code) {
        int classBits = code & (CLASS_ERROR | CLASS_WARNING);
        if (classBits == (CLASS_ERROR | CLASS_WARNING)) {
            throw DatException.invalidParameter(String.format("undefined DAT_RETURN class bits 0x%08X", classBits));
        }
        DatReturnType type = DatReturnType.fromCode(code);
        DatReturnSubtype subtype = DatReturnSubtype.fromCode(code);
        if (type == DatReturnType.SUCCESS && code != 0) {
            throw DatException.invalidParameter(String.format("undefined DAT_RETURN 0x%08X", code));
        }
        return strerror(type, subtype);
    }

    /**
     * The two messages for a type and subtype. Corresponds to {@code dat_strerror()}.
     *
     * @throws DatException {@code DAT_INVALID_PARAMETER} if either is null
     */
    public static DatErrorText strerror(DatReturnType type, DatReturnSubtype subtype) {
        if (type == null || subtype == null) {
            throw DatException.invalidParameter("type and subtype must not be null");
        }
        return new DatErrorText(type.cName(), subtype.message());
    }
}
