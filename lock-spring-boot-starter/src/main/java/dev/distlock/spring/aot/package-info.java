/**
 * Ahead-of-time processing and GraalVM native images: the runtime hints for what the library reads from the class
 * path or reflects on, registered in {@code META-INF/spring/aot.factories}.
 */
@NullMarked
package dev.distlock.spring.aot;

import org.jspecify.annotations.NullMarked;
