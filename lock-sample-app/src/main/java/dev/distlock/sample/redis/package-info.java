/** The sample's redis part. */
@NullMarked
package dev.distlock.sample.redis;

import org.jspecify.annotations.NullMarked;
