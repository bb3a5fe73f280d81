package dev.distlock.sample.web;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import dev.distlock.sample.wiki.StaleTokenException;

/**
 * Turns the sample's own stale-write rejection into a 409. Lock failures (held, lease lost, Redis down) are answered
 * by the starter's problem details (409, 409, 503).
 */
@RestControllerAdvice
public class LockErrorHandler {

    @ExceptionHandler(StaleTokenException.class)
    ProblemDetail staleWrite(StaleTokenException ex) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
    }
}
