/**
 * The provider side of the DAT registry: what a DAT provider implements
 * ({@link io.simrdma.dat.spi.DatProvider}, found through {@link java.util.ServiceLoader}) and what the
 * registry hands it when a consumer opens an IA ({@link io.simrdma.dat.spi.IaOpenRequest}). A provider
 * also implements every handle interface of {@code io.simrdma.dat}.
 *
 * <p>Thread safety: see each type.
 */
package io.simrdma.dat.spi;
