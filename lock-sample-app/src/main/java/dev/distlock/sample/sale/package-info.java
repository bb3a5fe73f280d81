/** The sample's sale part. */
@NullMarked
package dev.distlock.sample.sale;

import org.jspecify.annotations.NullMarked;
