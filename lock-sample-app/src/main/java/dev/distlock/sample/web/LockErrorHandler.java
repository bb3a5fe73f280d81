package dev.distlock.sample.web;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import dev.distlock.LeaseLostException;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;
import dev.distlock.sample.wiki.StaleTokenException;

/** Turns lock outcomes into HTTP answers with a message a person can act on. */
@RestControllerAdvice
public class LockErrorHandler {

    @ExceptionHandler(StaleTokenException.class)
    ProblemDetail staleWrite(StaleTokenException ex) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
    }

    @ExceptionHandler(LockTimeoutException.class)
    ProblemDetail busy(LockTimeoutException ex) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
                "Too busy: " + ex.getMessage() + "; try again");
    }

    @ExceptionHandler(LeaseLostException.class)
    ProblemDetail leaseLost(LeaseLostException ex) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
    }

    @ExceptionHandler(LockUnavailableException.class)
    ProblemDetail redisDown(LockUnavailableException ex) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, ex.getMessage());
    }
}
