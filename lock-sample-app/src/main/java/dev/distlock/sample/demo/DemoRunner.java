package dev.distlock.sample.demo;

import java.net.URI;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.stereotype.Component;

/**
 * With {@code sample.demo.enabled=true} (the {@code demo} profile), runs the {@link Demo} against this app once it is
 * up, prints the table and exits: 0 when the lock kept every guarantee, 1 otherwise.
 */
@Component
@ConditionalOnBooleanProperty("sample.demo.enabled")
public class DemoRunner implements ApplicationListener<ApplicationReadyEvent> {

    private static final Log logger = LogFactory.getLog(DemoRunner.class);

    private final DemoProperties settings;

    public DemoRunner(DemoProperties settings) {
        this.settings = settings;
    }

    @Override
    public void onApplicationEvent(ApplicationReadyEvent event) {
        // the property rather than Boot 4's WebServerApplicationContext: the sample runs on Boot 3.5 too
        int port = event.getApplicationContext().getEnvironment().getRequiredProperty("local.server.port",
                Integer.class);
        logger.info("Demo: " + this.settings.getPurchases() + " purchases by " + this.settings.getBuyers()
                + " buyers, " + this.settings.getEditors() + " editors x " + this.settings.getEditsPerEditor()
                + " edits, against http://127.0.0.1:" + port);
        Demo.Report report = new Demo(URI.create("http://127.0.0.1:" + port), this.settings).run();
        System.out.println(report.table());
        int exitCode = report.lockHeld() ? 0 : 1;
        System.exit(SpringApplication.exit(event.getApplicationContext(), () -> exitCode));
    }
}
