/** The distlock sample application. */
@NullMarked
package dev.distlock.sample;

import org.jspecify.annotations.NullMarked;
