/**
 * What every test JVM of the project shares: a Netty leak detector that fails the test class which
 * leaked a buffer, and a JUnit extension (registered by auto-detection) that fails a test class
 * leaving {@code simrdma-*} threads behind. A test dependency of every module, never shipped.
 */
package io.simrdma.testsupport;
