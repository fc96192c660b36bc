package dev.baton.samples.leaderjob;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/** A service whose report job runs on one copy only: start two, stop the one that runs it, the other takes over. */
@SpringBootApplication
@EnableScheduling
public class LeaderJobApplication {

    public static void main(String[] args) {
        SpringApplication.run(LeaderJobApplication.class, args);
    }
}
