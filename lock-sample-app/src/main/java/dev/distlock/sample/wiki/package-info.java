/** The sample's wiki part. */
@NullMarked
package dev.distlock.sample.wiki;

import org.jspecify.annotations.NullMarked;
