/** The sample's demo part. */
@NullMarked
package dev.distlock.sample.demo;

import org.jspecify.annotations.NullMarked;
