package io.loomgmp.startup.hello;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Spring Boot's web hello-world, served by embedded Tomcat on virtual threads
 * ({@code spring.threads.virtual.enabled=true}, see application.properties), so that under the
 * agent the requests run on GMP. The start-up benchmark times {@code GET /} from process start.
 */
@SpringBootApplication
@RestController
public class HelloApplication {
    public static void main(String[] args) {
        SpringApplication.run(HelloApplication.class, args);
    }

    @GetMapping("/")
    String hello() {
        return "hello";
    }
}
