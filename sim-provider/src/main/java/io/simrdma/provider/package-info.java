/**
 * The sim provider: DAT 1.2 (uDAPL) on sim-fabric's verbs API.
 *
 * <p>Applications do not use this package directly: they open an IA by name through
 * {@link io.simrdma.dat.Dat} and the registry finds {@link io.simrdma.provider.SimProvider} through
 * {@link java.util.ServiceLoader}. The one public type is {@code SimProvider}, whose static
 * {@code registerFabric} lets a test or a tool hand the provider a fabric it built itself (a seed,
 * fault rules, a capture). Everything else is package-private: the DAT objects ({@code SimIa},
 * {@code SimEp}, {@code SimEvd}, ...), the endpoint state table and the pieces an endpoint is made of
 * ({@code EpConnection}, {@code EpPosting}, {@code EpConfiguration}, {@code EpWatermarks}), and the
 * router that turns completions and connection-manager events into DAT events.
 *
 * <p>Layering: imports provider-api and sim-fabric's public packages only, never
 * {@code io.simrdma.fabric.internal..} (sim-tools' {@code ModuleLayeringTest} checks it).
 */
package io.simrdma.provider;
