/**
 * The DAT (uDAPL 1.2) API in Java: the interfaces of the DAT objects, the values they exchange, the
 * provider registry, and the one exception every failed call throws.
 *
 * <h2>Shape</h2>
 * <ul>
 * <li>Each DAT object is an interface extending {@link io.simrdma.dat.DatHandle} (handle type and
 *     consumer context). The methods of a dat function live on the object that is its first handle
 *     argument ({@code dat_ep_post_send(ep, ...)} is {@code ep.postSend(...)}); the few entry points
 *     without an object are static methods of {@link io.simrdma.dat.Dat}.</li>
 * <li>States, event numbers, completion statuses, handle types, return types and subtypes are enums
 *     carrying the numeric values of the DAT headers; flag words are {@link java.util.EnumSet}s of
 *     {@link io.simrdma.dat.BitFlag} enums (the empty set is the C default flag).</li>
 * <li>Attributes, parameters, triplets and events are records, validated on construction
 *     ({@code DAT_INVALID_PARAMETER}); events form the sealed hierarchy {@link io.simrdma.dat.DatEvent}.</li>
 * <li>A failure throws {@link io.simrdma.dat.DatException} (unchecked) with the return type and subtype
 *     the man page names. Normal outcomes are values: an empty EVD dequeues as an empty
 *     {@link java.util.Optional}, a timed-out wait is an {@link io.simrdma.dat.EvdWaitResult} or
 *     {@link io.simrdma.dat.CnoWaitResult}. An interrupted wait fails with {@code DAT_INTERRUPTED_CALL}.</li>
 * <li>{@code query()} methods take no mask and return the whole parameter record; dat_ep_modify's mask
 *     is {@link io.simrdma.dat.EpModify#fields()}.</li>
 * <li>Memory is the consumer's: an LMR registers a {@link java.nio.ByteBuffer} in place, never copied.
 *     Private data ({@code byte[]}) is copied in by the provider and copied out to the consumer.</li>
 * <li>{@code DAT_HANDLE_NULL} is {@code null} in arguments and an empty {@link java.util.Optional} in
 *     records; {@code DAT_TIMEOUT} is {@link io.simrdma.dat.Timeout}; cookies are {@code long}; IA
 *     addresses are {@link java.net.SocketAddress}es.</li>
 * </ul>
 *
 * <h2>From a dat function to Java</h2>
 * <table>
 * <caption>Every uDAPL 1.2 function</caption>
 * <tr><th>C</th><th>Java</th></tr>
 * <tr><td>{@code dat_ia_open}</td><td>{@link Dat#openIa(String, int)}, {@link DatRegistry#openIa(IaOpenParams)}</td></tr>
 * <tr><td>{@code dat_ia_query}</td><td>{@link InterfaceAdapter#query()}</td></tr>
 * <tr><td>{@code dat_ia_close}</td><td>{@link InterfaceAdapter#close(CloseFlag)}</td></tr>
 * <tr><td>{@code dat_set_consumer_context}</td><td>{@link DatHandle#setConsumerContext(Object)}</td></tr>
 * <tr><td>{@code dat_get_consumer_context}</td><td>{@link DatHandle#consumerContext()}</td></tr>
 * <tr><td>{@code dat_get_handle_type}</td><td>{@link DatHandle#handleType()}</td></tr>
 * <tr><td>{@code dat_strerror}</td><td>{@link Dat#strerror(int)}, {@link DatException#errorText()}</td></tr>
 * <tr><td>{@code dat_registry_list_providers}</td><td>{@link DatRegistry#listProviders(int)}</td></tr>
 * <tr><td>{@code dat_registry_add_provider}</td><td>{@link DatRegistry#addProvider(io.simrdma.dat.spi.DatProvider, ProviderInfo)}</td></tr>
 * <tr><td>{@code dat_registry_remove_provider}</td><td>{@link DatRegistry#removeProvider(io.simrdma.dat.spi.DatProvider, ProviderInfo)}</td></tr>
 * <tr><td>{@code dat_provider_init}</td><td>{@link io.simrdma.dat.spi.DatProvider#init(DatRegistry, ProviderInfo, String)}</td></tr>
 * <tr><td>{@code dat_provider_fini}</td><td>{@link io.simrdma.dat.spi.DatProvider#fini(DatRegistry, ProviderInfo)}</td></tr>
 * <tr><td>{@code dat_pz_create}</td><td>{@link InterfaceAdapter#createPz()}</td></tr>
 * <tr><td>{@code dat_pz_query}</td><td>{@link ProtectionZone#query()}</td></tr>
 * <tr><td>{@code dat_pz_free}</td><td>{@link ProtectionZone#free()}</td></tr>
 * <tr><td>{@code dat_lmr_create}</td><td>{@link InterfaceAdapter#createLmr(RegionDescription, ProtectionZone, java.util.Set)}</td></tr>
 * <tr><td>{@code dat_lmr_query}</td><td>{@link LocalMemoryRegion#query()}</td></tr>
 * <tr><td>{@code dat_lmr_free}</td><td>{@link LocalMemoryRegion#free()}</td></tr>
 * <tr><td>{@code dat_lmr_sync_rdma_read}</td><td>{@link InterfaceAdapter#syncRdmaRead(java.util.List)}</td></tr>
 * <tr><td>{@code dat_lmr_sync_rdma_write}</td><td>{@link InterfaceAdapter#syncRdmaWrite(java.util.List)}</td></tr>
 * <tr><td>{@code dat_rmr_create}</td><td>{@link ProtectionZone#createRmr()}</td></tr>
 * <tr><td>{@code dat_rmr_bind}</td><td>{@link RemoteMemoryRegion#bind(LmrTriplet, java.util.Set, Endpoint, long, java.util.Set)}, {@link RemoteMemoryRegion#unbind(Endpoint, long, java.util.Set)}</td></tr>
 * <tr><td>{@code dat_rmr_query}</td><td>{@link RemoteMemoryRegion#query()}</td></tr>
 * <tr><td>{@code dat_rmr_free}</td><td>{@link RemoteMemoryRegion#free()}</td></tr>
 * <tr><td>{@code dat_evd_create}</td><td>{@link InterfaceAdapter#createEvd(int, ConsumerNotificationObject, java.util.Set)}</td></tr>
 * <tr><td>{@code dat_evd_query}</td><td>{@link EventDispatcher#query()}</td></tr>
 * <tr><td>{@code dat_evd_free}</td><td>{@link EventDispatcher#free()}</td></tr>
 * <tr><td>{@code dat_evd_modify_cno}</td><td>{@link EventDispatcher#modifyCno(ConsumerNotificationObject)}</td></tr>
 * <tr><td>{@code dat_evd_enable}</td><td>{@link EventDispatcher#enable()}</td></tr>
 * <tr><td>{@code dat_evd_disable}</td><td>{@link EventDispatcher#disable()}</td></tr>
 * <tr><td>{@code dat_evd_wait}</td><td>{@link EventDispatcher#waitForEvent(Timeout, int)}</td></tr>
 * <tr><td>{@code dat_evd_dequeue}</td><td>{@link EventDispatcher#dequeue()}</td></tr>
 * <tr><td>{@code dat_evd_post_se}</td><td>{@link EventDispatcher#postSoftwareEvent(Object)}</td></tr>
 * <tr><td>{@code dat_evd_resize}</td><td>{@link EventDispatcher#resize(int)}</td></tr>
 * <tr><td>{@code dat_evd_set_unwaitable}</td><td>{@link EventDispatcher#setUnwaitable()}</td></tr>
 * <tr><td>{@code dat_evd_clear_unwaitable}</td><td>{@link EventDispatcher#clearUnwaitable()}</td></tr>
 * <tr><td>{@code dat_cno_create}</td><td>{@link InterfaceAdapter#createCno(WaitProxyAgent)}</td></tr>
 * <tr><td>{@code dat_cno_query}</td><td>{@link ConsumerNotificationObject#query()}</td></tr>
 * <tr><td>{@code dat_cno_free}</td><td>{@link ConsumerNotificationObject#free()}</td></tr>
 * <tr><td>{@code dat_cno_wait}</td><td>{@link ConsumerNotificationObject#waitForNotification(Timeout)}</td></tr>
 * <tr><td>{@code dat_cno_modify_agent}</td><td>{@link ConsumerNotificationObject#modifyAgent(WaitProxyAgent)}</td></tr>
 * <tr><td>{@code dat_ep_create}</td><td>{@link InterfaceAdapter#createEndpoint(ProtectionZone, EventDispatcher, EventDispatcher, EventDispatcher, EpAttributes)}</td></tr>
 * <tr><td>{@code dat_ep_create_with_srq}</td><td>{@link InterfaceAdapter#createEndpointWithSrq(ProtectionZone, EventDispatcher, EventDispatcher, EventDispatcher, SharedReceiveQueue, EpAttributes)}</td></tr>
 * <tr><td>{@code dat_ep_query}</td><td>{@link Endpoint#query()}</td></tr>
 * <tr><td>{@code dat_ep_modify}</td><td>{@link Endpoint#modify(EpModify)}</td></tr>
 * <tr><td>{@code dat_ep_connect}</td><td>{@link Endpoint#connect(java.net.SocketAddress, long, Timeout, byte[], Qos, java.util.Set)}</td></tr>
 * <tr><td>{@code dat_ep_dup_connect}</td><td>{@link Endpoint#dupConnect(Endpoint, Timeout, byte[], Qos)}</td></tr>
 * <tr><td>{@code dat_ep_disconnect}</td><td>{@link Endpoint#disconnect(CloseFlag)}</td></tr>
 * <tr><td>{@code dat_ep_reset}</td><td>{@link Endpoint#reset()}</td></tr>
 * <tr><td>{@code dat_ep_free}</td><td>{@link Endpoint#free()}</td></tr>
 * <tr><td>{@code dat_ep_get_status}</td><td>{@link Endpoint#status()}</td></tr>
 * <tr><td>{@code dat_ep_post_send}</td><td>{@link Endpoint#postSend(java.util.List, long, java.util.Set)}</td></tr>
 * <tr><td>{@code dat_ep_post_recv}</td><td>{@link Endpoint#postRecv(java.util.List, long, java.util.Set)}</td></tr>
 * <tr><td>{@code dat_ep_post_rdma_read}</td><td>{@link Endpoint#postRdmaRead(java.util.List, long, RmrTriplet, java.util.Set)}</td></tr>
 * <tr><td>{@code dat_ep_post_rdma_write}</td><td>{@link Endpoint#postRdmaWrite(java.util.List, long, RmrTriplet, java.util.Set)}</td></tr>
 * <tr><td>{@code dat_ep_recv_query}</td><td>{@link Endpoint#recvQuery()}</td></tr>
 * <tr><td>{@code dat_ep_set_watermark}</td><td>{@link Endpoint#setWatermark(int, int)}</td></tr>
 * <tr><td>{@code dat_psp_create}</td><td>{@link InterfaceAdapter#createPsp(long, EventDispatcher, PspFlag)}</td></tr>
 * <tr><td>{@code dat_psp_create_any}</td><td>{@link InterfaceAdapter#createPspAny(EventDispatcher, PspFlag)}</td></tr>
 * <tr><td>{@code dat_psp_query}</td><td>{@link PublicServicePoint#query()}</td></tr>
 * <tr><td>{@code dat_psp_free}</td><td>{@link PublicServicePoint#free()}</td></tr>
 * <tr><td>{@code dat_rsp_create}</td><td>{@link InterfaceAdapter#createRsp(long, Endpoint, EventDispatcher)}</td></tr>
 * <tr><td>{@code dat_rsp_query}</td><td>{@link ReservedServicePoint#query()}</td></tr>
 * <tr><td>{@code dat_rsp_free}</td><td>{@link ReservedServicePoint#free()}</td></tr>
 * <tr><td>{@code dat_cr_query}</td><td>{@link ConnectionRequest#query()}</td></tr>
 * <tr><td>{@code dat_cr_accept}</td><td>{@link ConnectionRequest#accept(Endpoint, byte[])}</td></tr>
 * <tr><td>{@code dat_cr_reject}</td><td>{@link ConnectionRequest#reject()}</td></tr>
 * <tr><td>{@code dat_cr_handoff}</td><td>{@link ConnectionRequest#handoff(long)}</td></tr>
 * <tr><td>{@code dat_srq_create}</td><td>{@link InterfaceAdapter#createSrq(ProtectionZone, SrqAttributes)}</td></tr>
 * <tr><td>{@code dat_srq_query}</td><td>{@link SharedReceiveQueue#query()}</td></tr>
 * <tr><td>{@code dat_srq_free}</td><td>{@link SharedReceiveQueue#free()}</td></tr>
 * <tr><td>{@code dat_srq_post_recv}</td><td>{@link SharedReceiveQueue#postRecv(java.util.List, long)}</td></tr>
 * <tr><td>{@code dat_srq_resize}</td><td>{@link SharedReceiveQueue#resize(int)}</td></tr>
 * <tr><td>{@code dat_srq_set_lw}</td><td>{@link SharedReceiveQueue#setLowWatermark(int)}</td></tr>
 * </table>
 *
 * <p>Thread safety: each type states its own; handles follow {@link io.simrdma.dat.DatHandle}.
 */
package io.simrdma.dat;
