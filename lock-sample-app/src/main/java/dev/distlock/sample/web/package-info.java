/** The sample's web part. */
@NullMarked
package dev.distlock.sample.web;

import org.jspecify.annotations.NullMarked;
